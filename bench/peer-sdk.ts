/**
 * The peer of bench/load.ts: a server built the way the official MCP TypeScript SDK (v1,
 * @modelcontextprotocol/sdk) documents a stateless Streamable HTTP server
 * (https://github.com/modelcontextprotocol/typescript-sdk, README "Without session management (stateless)"):
 * `createMcpExpressApp` (Express, JSON body, DNS rebinding protection on loopback), the SDK's
 * `requireBearerAuth` with a verifier that checks the access token's ES256 signature, issuer, audience and
 * expiry with jose on every request (RFC 9068 JWT access tokens, as ours are), and per request a new
 * `McpServer` and `StreamableHTTPServerTransport` (no session id, JSON answers) whose `get_profile` tool
 * makes one prepared query for the token's user. What a careful implementation of the same call with the
 * SDK does, without our admission, budgets, output validation and audit rows.
 *
 * Run as a script: `DATABASE_URL=... PEER_JWK='<public ES256 JWK>' PEER_ISSUER=... PEER_AUDIENCE=...
 * node bench/peer-sdk.ts`; listens on 127.0.0.1:`PORT` (0: any free port), prints `listening on port N`.
 */
import type { AddressInfo } from "node:net";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { importJWK, jwtVerify } from "jose";
import pg from "pg";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`peer-sdk: ${name} is required`);
  return value;
};

const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: 10 });
const key = await importJWK(JSON.parse(env("PEER_JWK")), "ES256");
const issuer = env("PEER_ISSUER");
const audience = env("PEER_AUDIENCE");

/** Verifies the bearer token (signature, iss, aud, exp, nbf) and names its user. */
async function verifyAccessToken(token: string): Promise<AuthInfo> {
  const { payload } = await jwtVerify(token, key, { issuer, audience, algorithms: ["ES256"] });
  return {
    token,
    clientId: String(payload.client_id ?? ""),
    scopes: String(payload.scope ?? "").split(" "),
    expiresAt: payload.exp,
    extra: { userId: payload.sub },
  };
}

function server(): McpServer {
  const mcp = new McpServer({ name: "bench-peer", version: "1.0.0" });
  mcp.registerTool(
    "get_profile",
    { description: "The user who authorized the connection." },
    async (extra) => {
      const { rows } = await pool.query({
        name: "peer-profile",
        text: "select id, email, display_name, time_zone from users where id = $1",
        values: [extra.authInfo?.extra?.userId],
      });
      const user = rows[0];
      const data = {
        user_id: user.id,
        email: user.email,
        display_name: user.display_name,
        time_zone: user.time_zone ?? "UTC",
      };
      return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
    },
  );
  return mcp;
}

const app = createMcpExpressApp();
app.post("/mcp", requireBearerAuth({ verifier: { verifyAccessToken } }), async (req, res) => {
  const mcp = server();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on("close", () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
const listener = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`listening on port ${(listener.address() as AddressInfo).port}`);
});
// Exit through process.exit on SIGTERM (bench/load.ts stops its targets so), which lets `--cpu-prof` write.
process.on("SIGTERM", () => process.exit(0));
