/**
 * Emits generated/server.json: this server's entry for the MCP registry (schema 2025-12-11,
 * https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json; test/fixtures/mcp-registry/):
 * its reverse-DNS name (package.json `mcpName`), title, description and version, and one remote, the
 * Streamable HTTP endpoint at `{base_url}/mcp`, where `base_url` is the operator's public base URL
 * (`PUBLIC_BASE_URL`). Clients authenticate with OAuth (discovered from the endpoint's 401), so the remote
 * names no header.
 */
import { createRequire } from "node:module";
import { SERVER_DESCRIPTION, SERVER_INFO } from "../../src/mcp/server-info.ts";

/** The registry schema the file follows. */
export const SERVER_JSON_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

const pkg = createRequire(import.meta.url)("../../package.json") as { mcpName: string; version: string };

/** @returns generated/server.json: two-space JSON with a trailing newline. */
export function emitServerJson(provenance: string): string {
  const doc = {
    $schema: SERVER_JSON_SCHEMA,
    name: pkg.mcpName,
    title: SERVER_INFO.title,
    description: SERVER_DESCRIPTION,
    version: pkg.version,
    remotes: [
      {
        type: "streamable-http",
        url: "{base_url}/mcp",
        variables: {
          base_url: {
            description:
              "The service's public base URL (PUBLIC_BASE_URL), without a trailing slash; the MCP endpoint is {base_url}/mcp.",
            isRequired: true,
            format: "string",
            placeholder: "https://social.example.com",
          },
        },
      },
    ],
    _meta: { "io.modelcontextprotocol.registry/publisher-provided": { generated: provenance } },
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
