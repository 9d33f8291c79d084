/**
 * The portable reference bundle served at /developers/mcp/download.zip (service spec 4.6): catalog.json and
 * guide.md exactly as generated, one input and one output JSON Schema per tool, and a README.
 * Reproducible byte for byte: entries sorted by name, a fixed DOS timestamp (built from local fields, so the
 * time zone does not matter), no extended timestamps, fixed modes; deflate from the running Node's zlib, so
 * identical inputs on the same Node give identical bytes.
 */
import { ZipFile } from "yazl";
import type { CatalogDoc } from "./page.ts";

/** 2026-01-01 00:00:00 in the DOS fields, whatever the time zone (DOS times are local: built per call). */
const fixedMtime = () => new Date(2026, 0, 1, 0, 0, 0);
const FILE_MODE = 0o100644;

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, "utf8");

function readme(catalog: CatalogDoc): string {
  const tools = catalog.tools;
  return `# Social MCP reference bundle

${catalog._generated}

- \`catalog.json\`: the machine-readable tool catalog (${tools.length} tools): per tool the strict input schema, the
  output schema (the full result envelope), the required scope, read or write, \`browser_approval\` and
  \`queued_handler\`; plus scopes, error codes, limits and the protocol revisions
  (${catalog.protocol_revisions.join(", ")}). The catalog lists capabilities; it is not authorization.
- \`guide.md\`: the developer guide: connecting with OAuth, the envelope and its states, errors, limits,
  credits, scopes and every tool with an example call.
- \`schemas/<tool>.input.json\`: JSON Schema 2020-12 of the tool's \`arguments\`.
- \`schemas/<tool>.output.json\`: JSON Schema of the tool's \`structuredContent\` (the envelope).

The same files are served at \`{base_url}/developers/mcp\`.
`;
}

/** The bundle's entries, sorted by path. */
export function bundleEntries(
  catalogBytes: Buffer,
  guideBytes: Buffer,
  catalog: CatalogDoc,
): Array<[string, Buffer]> {
  const entries: Array<[string, Buffer]> = [
    ["README.md", Buffer.from(readme(catalog), "utf8")],
    ["catalog.json", catalogBytes],
    ["guide.md", guideBytes],
  ];
  for (const tool of catalog.tools) {
    const base = { $schema: "https://json-schema.org/draft/2020-12/schema" };
    entries.push([
      `schemas/${tool.name}.input.json`,
      json({ ...base, title: `${tool.name} arguments`, ...tool.input_schema }),
    ]);
    entries.push([
      `schemas/${tool.name}.output.json`,
      json({ ...base, title: `${tool.name} result envelope`, ...tool.output_schema }),
    ]);
  }
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Builds the zip in memory.
 * @returns the archive bytes (a few hundred KiB for the full catalog).
 */
export function buildBundle(catalogBytes: Buffer, guideBytes: Buffer, catalog: CatalogDoc): Promise<Buffer> {
  const zip = new ZipFile();
  const mtime = fixedMtime();
  for (const [name, body] of bundleEntries(catalogBytes, guideBytes, catalog)) {
    zip.addBuffer(body, name, {
      mtime,
      mode: FILE_MODE,
      forceDosTimestamp: true,
      compress: true,
    });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("error", reject);
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
  });
}
