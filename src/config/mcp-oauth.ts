/**
 * Settings of the MCP endpoint and the OAuth server: the exact resource URL (RFC 8707 resource indicator,
 * RFC 9728), the issuer (RFC 8414), the MCP flag's default, and long polls (docs/agent-path.md).
 */
import Type from "typebox";
import { Bool, type ConfigArea, type EnvReader, Int, Str, stripSlash } from "./env.ts";
import type { ServerConfig } from "./server.ts";

export const McpOAuthEnv = Type.Object({
  MCP_RESOURCE_URL: Str(
    { pattern: "^https?://[^?#]+$" },
    {
      description: "the exact MCP endpoint (OAuth resource indicator); its host is checked on every request",
      defaultText: "`{PUBLIC_BASE_URL}/mcp`",
    },
  ),
  OAUTH_ISSUER_URL: Str(
    { pattern: "^https?://[^?#]+$" },
    { description: "OAuth issuer", defaultText: "`{PUBLIC_BASE_URL}`" },
  ),
  MCP_ENABLED: Bool({
    description:
      "the default of the MCP flag: `false` answers 404 on `/mcp`, metadata and reference routes. `social-mcp admin mcp enable|disable` stores the flag in the database for every instance, overriding this default (workers recheck it before every operation, HTTP endpoints within 2 seconds; the reference pages follow the environment at start); `admin mcp default` removes it",
    defaultText: "`true`",
  }),
  LONG_POLL_MAX_PER_USER: Int(4, 0, 100, {
    description:
      "concurrent long polls (`wait_seconds` on get_job_status, get_carousel, get_automation_run) per user; a call beyond it answers at once with the current state",
  }),
  LONG_POLL_MAX_PER_PROCESS: Int(2000, 0, 100_000, {
    description: "concurrent long polls per process; a call beyond it answers at once with the current state",
  }),
});

/** The MCP endpoint and the OAuth server. URLs have no trailing slash. */
export interface McpOAuthConfig {
  /** The exact MCP endpoint URL (RFC 8707 resource indicator). */
  resourceUrl: string;
  issuerUrl: string;
  mcpEnabled: boolean;
  /**
   * Long polls (`wait_seconds`, src/domain/long-poll.ts): concurrent waits per user and per process; a call
   * beyond either answers at once.
   */
  longPoll: { maxPerUser: number; maxPerProcess: number };
}

export const mcpOAuthArea: ConfigArea = { title: "MCP and OAuth", schema: McpOAuthEnv };

/**
 * The MCP and OAuth settings; the URLs default to the server's public base URL.
 * @throws ConfigError naming a LONG_POLL_* variable out of its bounds.
 */
export function mcpOAuthConfig(r: EnvReader, server: Pick<ServerConfig, "publicBaseUrl">): McpOAuthConfig {
  const { picked } = r;
  return {
    resourceUrl: stripSlash(picked.MCP_RESOURCE_URL ?? `${server.publicBaseUrl}/mcp`),
    issuerUrl: stripSlash(picked.OAUTH_ISSUER_URL ?? server.publicBaseUrl),
    mcpEnabled: r.bool("MCP_ENABLED", true),
    longPoll: {
      maxPerUser: r.num("LONG_POLL_MAX_PER_USER", 4),
      maxPerProcess: r.num("LONG_POLL_MAX_PER_PROCESS", 2000),
    },
  };
}
