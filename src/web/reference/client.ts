/**
 * The reference page's only script, inlined into the page and allowed by the CSP through its SHA-256 hash
 * (no nonce: the page is static, so it can carry a strong ETag). Its look comes from the shared stylesheets
 * of this origin (src/web/assets.ts); no external resources.
 *
 * Search: every word must match; `name:`, `group:` and `scope:` prefixes match that field only, plain words
 * match name, title, group, scope and description. `?q=` pre-fills the box.
 */

export const SEARCH_SCRIPT = `(() => {
  const input = document.getElementById("tool-search");
  const count = document.getElementById("tool-count");
  const items = Array.from(document.querySelectorAll("#tool-list > li"));
  const apply = () => {
    const terms = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let shown = 0;
    for (const li of items) {
      const d = li.dataset;
      const ok = terms.every((t) => {
        const m = /^(name|group|scope):(.+)$/.exec(t);
        return m ? (d[m[1]] || "").includes(m[2]) : d.search.includes(t);
      });
      li.hidden = !ok;
      if (ok) shown += 1;
    }
    count.textContent = shown === items.length ? items.length + " tools" : shown + " of " + items.length + " tools";
  };
  input.addEventListener("input", apply);
  const q = new URLSearchParams(location.search).get("q");
  if (q) input.value = q;
  apply();
})();`;
