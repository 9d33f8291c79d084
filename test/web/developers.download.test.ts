/**
 * /developers/mcp/download.zip: the bundle holds the same catalog and guide bytes as the routes, one input and
 * one output schema per tool and a README; identical bytes for identical inputs (whatever the time zone);
 * five downloads per minute per client IP, then 429 with Retry-After.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import yauzl from "yauzl";
import { bundleEntries, buildBundle } from "../../src/web/reference/bundle.ts";
import type { CatalogDoc } from "../../src/web/reference/page.ts";
import { startTestApp } from "../helpers/app.ts";

/** Reads every entry of a zip: name -> bytes, in archive order. */
function unzip(zip: Buffer): Promise<Array<[string, Buffer]>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err);
      const out: Array<[string, Buffer]> = [];
      file.on("entry", (entry: yauzl.Entry) => {
        file.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () => {
            out.push([entry.fileName, Buffer.concat(chunks)]);
            file.readEntry();
          });
        });
      });
      file.on("end", () => resolve(out));
      file.on("error", reject);
      file.readEntry();
    });
  });
}

const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

test("the zip holds the route's catalog and guide, a README and two schemas per tool", async () => {
  const app = await startTestApp({ queue: false });
  const catalogBytes = await bytes(await fetch(`${app.url}/developers/mcp/catalog.json`));
  const guideBytes = await bytes(await fetch(`${app.url}/developers/mcp/guide.md`));
  const catalog = JSON.parse(catalogBytes.toString("utf8")) as CatalogDoc;

  const res = await fetch(`${app.url}/developers/mcp/download.zip`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/zip");
  assert.match(res.headers.get("content-disposition") ?? "", /^attachment; filename="[^"]+\.zip"$/);
  const zip = await bytes(res);
  const entries = await unzip(zip);
  const names = entries.map(([n]) => n);
  const wantNames = [
    "README.md",
    "catalog.json",
    "guide.md",
    ...catalog.tools.flatMap((t) => [`schemas/${t.name}.input.json`, `schemas/${t.name}.output.json`]),
  ].sort();
  assert.deepEqual(names, wantNames);
  const byName = new Map(entries);
  assert.ok(byName.get("catalog.json")?.equals(catalogBytes), "catalog.json differs from the route");
  assert.ok(byName.get("guide.md")?.equals(guideBytes), "guide.md differs from the route");
  assert.match(byName.get("README.md")?.toString("utf8") ?? "", new RegExp(`${catalog.tools.length} tools`));
  for (const t of catalog.tools) {
    const input = JSON.parse(byName.get(`schemas/${t.name}.input.json`)!.toString("utf8"));
    assert.equal(input.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.deepEqual(input.properties, t.input_schema.properties, t.name);
    const output = JSON.parse(byName.get(`schemas/${t.name}.output.json`)!.toString("utf8"));
    assert.deepEqual(output.properties, t.output_schema.properties, t.name);
  }

  const again = await fetch(`${app.url}/developers/mcp/download.zip`);
  assert.ok((await bytes(again)).equals(zip), "a second download differs");
  assert.equal(again.headers.get("etag"), res.headers.get("etag"));
});

test("identical inputs give identical zip bytes, in any time zone", async () => {
  const catalog: CatalogDoc = {
    _generated: "test",
    protocol_revisions: ["2026-07-28"],
    tools: [
      {
        name: "b_tool",
        title: "B",
        group: "account",
        description: "d",
        scope: "read:profile",
        access: "read",
        browser_approval: false,
        queued_handler: false,
        budget: "read",
        credits: "none",
        plan: null,
        input_schema: { type: "object", additionalProperties: false, properties: {} },
        output_schema: { type: "object" },
      },
    ],
  };
  const catalogBytes = Buffer.from(JSON.stringify(catalog));
  const guide = Buffer.from("# guide\n");
  const tz = process.env.TZ;
  try {
    process.env.TZ = "UTC";
    const a = await buildBundle(catalogBytes, guide, catalog);
    process.env.TZ = "Pacific/Kiritimati";
    const b = await buildBundle(catalogBytes, guide, catalog);
    assert.ok(a.equals(b));
  } finally {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  }
  assert.deepEqual(
    bundleEntries(catalogBytes, guide, catalog).map(([n]) => n),
    ["README.md", "catalog.json", "guide.md", "schemas/b_tool.input.json", "schemas/b_tool.output.json"],
  );
});

test("the sixth download in a minute from one IP is 429 with Retry-After", async () => {
  const app = await startTestApp({ queue: false });
  for (let i = 1; i <= 5; i += 1) {
    const res = await fetch(`${app.url}/developers/mcp/download.zip`);
    assert.equal(res.status, 200, `download ${i}`);
    await res.arrayBuffer();
  }
  const res = await fetch(`${app.url}/developers/mcp/download.zip`);
  assert.equal(res.status, 429);
  const retryAfter = Number(res.headers.get("retry-after"));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  await res.arrayBuffer();
  const catalog = await fetch(`${app.url}/developers/mcp/catalog.json`);
  assert.equal(catalog.status, 200, "the limit applies to downloads only");
  await catalog.arrayBuffer();
});
