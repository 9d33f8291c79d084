/**
 * The developer reference's source files, read once from generated/ (codegen's output: catalog.json and
 * guide.md), with everything derived from them: the parsed catalog, the HTML page and the zip bundle.
 * Loaded lazily on the first request, so a tree without generated files still boots (the routes then fail).
 */
import { readFile } from "node:fs/promises";
import { etagOf } from "../etag.ts";
import { buildBundle } from "./bundle.ts";
import { type CatalogDoc, renderReferencePage } from "./page.ts";

/** A response body with its strong ETag (RFC 9110 8.8.3): a hash of the exact bytes. */
export interface Asset {
  body: Buffer;
  etag: string;
}

export interface ReferenceAssets {
  catalog: Asset;
  guide: Asset;
  page: Asset & { scriptHash: string };
  bundle: Asset;
}

const GENERATED = new URL("../../../generated/", import.meta.url);

const asset = (body: Buffer): Asset => ({ body, etag: etagOf(body) });

/**
 * Reads generated/catalog.json and generated/guide.md and builds the page and the bundle.
 * @param dir the generated/ directory (tests may pass another).
 * @throws when the files are missing (run `npm run codegen`) or the catalog is not valid JSON.
 */
export async function loadReferenceAssets(dir: URL = GENERATED): Promise<ReferenceAssets> {
  const [catalogBytes, guideBytes] = await Promise.all([
    readFile(new URL("catalog.json", dir)),
    readFile(new URL("guide.md", dir)),
  ]);
  const catalog = JSON.parse(catalogBytes.toString("utf8")) as CatalogDoc;
  const page = renderReferencePage(catalog, guideBytes.toString("utf8"));
  const bundle = await buildBundle(catalogBytes, guideBytes, catalog);
  return {
    catalog: asset(catalogBytes),
    guide: asset(guideBytes),
    page: {
      ...asset(Buffer.from(page.html, "utf8")),
      scriptHash: page.scriptHash,
    },
    bundle: asset(bundle),
  };
}
