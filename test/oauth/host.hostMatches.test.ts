/** hostMatches (DNS-rebinding defence shared with the MCP endpoint). */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Request } from "express";
import { loadConfig } from "../../src/config/index.ts";
import type { AppContext } from "../../src/context.ts";
import { hostMatches } from "../../src/oauth/host.ts";

const ctx = (resourceUrl: string) =>
  ({ config: { ...loadConfig({}), resourceUrl } }) as unknown as AppContext;
const req = (host: string | undefined) => ({ host }) as unknown as Request;

test("hostMatches compares the Host with the resource URL's host", () => {
  const table: Array<[string, string | undefined, boolean]> = [
    ["https://mcp.example.com/mcp", "mcp.example.com", true],
    ["https://mcp.example.com/mcp", "MCP.example.com", true],
    ["https://mcp.example.com/mcp", "mcp.example.com:443", true],
    ["https://mcp.example.com/mcp", "mcp.example.com:8443", false],
    ["https://mcp.example.com/mcp", "evil.example.com", false],
    ["https://mcp.example.com/mcp", "mcp.example.com.evil.net", false],
    ["https://mcp.example.com/mcp", "evil.net@mcp.example.com", false],
    ["https://mcp.example.com/mcp", undefined, false],
    ["https://mcp.example.com/mcp", "", false],
    ["http://127.0.0.1:3000/mcp", "127.0.0.1:3000", true],
    ["http://127.0.0.1:3000/mcp", "localhost:3000", true],
    ["http://localhost:3000/mcp", "127.0.0.1:3000", true],
    ["http://localhost:3000/mcp", "[::1]:3000", true],
    ["http://localhost:3000/mcp", "127.0.0.1:3001", false],
    ["http://localhost:3000/mcp", "localhost.evil.net:3000", false],
    ["http://localhost:3000/mcp", "127.0.0.2:3000", false],
    ["https://mcp.example.com/mcp", "127.0.0.1", false],
    ["http://127.0.0.1:3000/mcp", "127.0.0.1", false],
  ];
  for (const [resource, host, want] of table)
    assert.equal(hostMatches(ctx(resource), req(host)), want, `${resource} ${host}`);
});
