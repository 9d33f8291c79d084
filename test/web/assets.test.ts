/**
 * The stylesheets of the pages (src/web/assets.ts): served from this origin as text/css with a strong ETag
 * (304 on a match), cached for a year at the versioned URL the pages link; and every page's CSP allows
 * only this origin's stylesheets (`style-src 'self'`, no inline style).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({ queue: false });

test("pages link Pico CSS and our stylesheet from this origin, versioned, and allow no inline style", async () => {
  for (const path of ["/", "/login"]) {
    const res = await fetch(`${app.url}${path}`);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /style-src 'self'(;|$)/, path);
    assert.doesNotMatch(csp, /unsafe-inline/, path);
    const $ = cheerio.load(await res.text());
    assert.deepEqual(
      $('link[rel="stylesheet"]')
        .map((_, el) =>
          $(el)
            .attr("href")
            ?.replace(/\?v=[\w-]{12}$/, ""),
        )
        .get(),
      ["/assets/pico.min.css", "/assets/app.css"],
      path,
    );
    assert.equal($("[style], style").length, 0, `${path} has no inline style`);
    assert.equal($("main#main").length, 1);
    assert.equal(
      $('header.site nav a[href="/posts"]').length,
      2,
      "the header links the posts page (row and menu)",
    );
  }
});

test("a stylesheet: text/css, strong ETag and 304, a year of cache at its versioned URL", async () => {
  const home = cheerio.load(await (await fetch(`${app.url}/`)).text());
  const href = home('link[href^="/assets/app.css"]').attr("href")!;
  const versioned = await fetch(`${app.url}${href}`);
  assert.equal(versioned.status, 200);
  assert.equal(versioned.headers.get("content-type"), "text/css; charset=utf-8");
  assert.equal(versioned.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(versioned.headers.get("x-content-type-options"), "nosniff");
  const body = await versioned.text();
  assert.match(body, /\.badge\[data-tone="ok"\]/);
  const etag = versioned.headers.get("etag")!;
  assert.match(etag, /^"[\w-]{43}"$/);

  const plain = await fetch(`${app.url}/assets/app.css`);
  assert.equal(plain.headers.get("cache-control"), "public, max-age=300");
  assert.equal(plain.headers.get("etag"), etag);
  await plain.arrayBuffer();
  const again = await fetch(`${app.url}/assets/app.css`, { headers: { "if-none-match": etag } });
  assert.equal(again.status, 304);

  const pico = await fetch(`${app.url}/assets/pico.min.css`);
  assert.equal(pico.status, 200);
  assert.match(await pico.text(), /Pico CSS/);
  for (const name of ["nope.css", "..%2Fpackage.json", "app.css.map"]) {
    const res = await fetch(`${app.url}/assets/${name}`);
    assert.equal(res.status, 404, name);
    await res.arrayBuffer();
  }
});
