/**
 * `npm run codegen`: turns tools.yaml into generated/ (tool-types.ts, registry.ts, catalog.json, guide.md),
 * bundles the MCP Apps views into generated/views/ (src/mcp/views/) and writes a handler stub for every tool
 * without one.
 * `npm run codegen -- --check`: writes nothing; exits 1 naming every generated file that differs from what
 * codegen would write now (stubs are not checked: they belong to their authors once written).
 *
 * Options: `--source <tools.yaml>` (default ./tools.yaml), `--root <dir>` (output root, default the repo).
 * Exit codes: 0 done or up to date, 1 invalid tools.yaml or drift, 2 bad usage.
 * The reference bundle (download.zip) is not a file here: src/web/reference/bundle.ts builds it
 * reproducibly from generated/catalog.json and generated/guide.md.
 */
import { runCli } from "./cli.ts";

runCli(process.argv.slice(2)).then((code) => process.exit(code));
