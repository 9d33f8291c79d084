/**
 * The reference page's only script and style, inlined into the page and allowed by the CSP through their
 * SHA-256 hashes (no nonce: the page is static, so it can carry a strong ETag). No external resources.
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

export const PAGE_STYLE = `body{font:16px/1.55 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fff}
header{background:#14213d;color:#fff;padding:1rem 2rem}header a{color:#fca311;margin-right:1rem}
main{display:grid;grid-template-columns:minmax(18rem,28rem) 1fr;gap:2rem;padding:1rem 2rem}
@media (max-width:900px){main{grid-template-columns:1fr}}
#reference{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto}
#tool-search{width:100%;font:inherit;padding:.5rem;box-sizing:border-box}
#tool-list{list-style:none;padding:0}#tool-list li{border-bottom:1px solid #ddd;padding:.5rem 0}
.meta{font-size:.85rem;color:#555}.badge{display:inline-block;background:#eef;border-radius:3px;padding:0 .3rem;margin-right:.2rem}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;font-size:.85rem}code{font-size:.9em}
table{border-collapse:collapse;display:block;overflow:auto}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
article{min-width:0}`;
