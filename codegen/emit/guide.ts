/**
 * Emits generated/guide.md, the developer guide (DESIGN.md section 2): connecting (OAuth steps), calling
 * tools, the envelope, states and what a client does in each, errors, limits, credits, plans, scopes, and one
 * section per tool with an example call. Addresses are written as `{base_url}` (the guide is static).
 */
import type { CodegenContext } from "../context.ts";
import { cell, toolsChapter } from "./guide-tools.ts";

const code = (lang: string, body: string) => `\`\`\`${lang}\n${body}\n\`\`\``;

function connecting(ctx: CodegenContext): string {
  const [current, ...legacy] = ctx.protocolRevisions;
  const registration = {
    client_name: "My agent",
    redirect_uris: ["http://127.0.0.1:8976/callback"],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
  return `## Connecting

The MCP endpoint is \`{base_url}/mcp\` (Streamable HTTP, JSON-RPC 2.0, POST only; GET and DELETE answer 405).
It speaks MCP ${current} (stateless, \`server/discover\`) and the legacy revisions ${legacy.join(" and ")}
(\`initialize\` first). Every connection is bound to one user and one workspace, chosen by the user at consent.
Authorization is OAuth 2.1 with PKCE S256 and a resource indicator; there are no API keys.

1. **Challenge.** A request to \`{base_url}/mcp\` without a token answers HTTP 401 with
   \`WWW-Authenticate: Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource/mcp"\`.
2. **Protected resource metadata** (RFC 9728): \`GET\` that URL. It names the \`resource\` (the exact MCP
   endpoint), the \`authorization_servers\` (the issuer) and \`scopes_supported\`.
3. **Authorization server metadata** (RFC 8414): \`GET {issuer}/.well-known/oauth-authorization-server\` gives
   the \`authorization_endpoint\`, \`token_endpoint\`, \`registration_endpoint\` and \`revocation_endpoint\`, with
   \`code_challenge_methods_supported: ["S256"]\`.
4. **Dynamic client registration** (RFC 7591): \`POST\` JSON to the registration endpoint. Only public clients
   (\`token_endpoint_auth_method: none\`); 1 to 10 redirect URIs, HTTPS or HTTP on loopback (\`127.0.0.1\` and
   \`[::1]\` with any port, \`localhost\` exactly), no fragments or wildcards.

${code("json", JSON.stringify(registration, null, 2))}

5. **Authorize** in the user's browser: \`GET {base_url}/mcp/oauth/authorize\` with \`response_type=code\`,
   \`client_id\`, \`redirect_uri\`, \`scope\` (space-separated, see Scopes), \`state\`, \`code_challenge\` (base64url
   SHA-256 of a random \`code_verifier\`), \`code_challenge_method=S256\` and \`resource={base_url}/mcp\`. The user
   signs in, picks the workspace and approves the scopes; the redirect carries \`code\`, \`state\` and \`iss\`.
   Check \`state\` and \`iss\`.
6. **Token:** \`POST {base_url}/mcp/oauth/token\` (form data) with \`grant_type=authorization_code\`, \`client_id\`,
   \`redirect_uri\` (the same one), \`code\`, \`code_verifier\` and \`resource\`. The access token lasts one hour, the
   refresh token 30 days. A code works once.
7. **Refresh with rotation:** \`grant_type=refresh_token\` with \`client_id\`, \`refresh_token\`, \`resource\` and an
   optional narrower \`scope\`. Each use returns a new refresh token: replace the stored one at once, the old one
   is rejected from then on.
8. **Revoke:** \`POST {base_url}/mcp/oauth/revoke\` with \`token\` and \`client_id\`. The user can also revoke the
   connection in the browser settings; its tokens stop working immediately.

Send the access token only in \`Authorization: Bearer ...\`, never in a URL. A token lacking a tool's scope gets
HTTP 403 with an \`insufficient_scope\` challenge naming the scope; only the user can grant it, in a new consent.

### Calling a tool (revision ${current})

Every request carries \`MCP-Protocol-Version\`, \`Mcp-Method\` (the JSON-RPC method) and, for \`tools/call\`,
\`Mcp-Name\` (the tool name), matching the body, and \`params._meta\` with the protocol version and the client
capabilities.

${code(
  "http",
  `POST /mcp HTTP/1.1
Host: {host}
Authorization: Bearer {access_token}
Content-Type: application/json
Accept: application/json, text/event-stream
MCP-Protocol-Version: ${current}
Mcp-Method: tools/call
Mcp-Name: get_profile

{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_profile","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"${current}","io.modelcontextprotocol/clientCapabilities":{}}}}`,
)}

\`tools/list\` shows only the tools the token's scopes allow; follow \`nextCursor\`. With a legacy revision, call
\`initialize\` first, then send the negotiated \`MCP-Protocol-Version\` header on every request.
`;
}

function envelope(): string {
  return `## The result envelope

Every tool result has MCP \`content\` (the same JSON as text) and \`structuredContent\`, the envelope:

| Field | Type | Presence |
|---|---|---|
| \`request_id\` | UUID, server generated | always |
| \`status\` | one of the states below | always |
| \`data\` | object, tool-specific | when the call returns data |
| \`operation_id\` | UUID | when an operation exists (review and queued tools) |
| \`approval_url\` | URL | in \`approval_required\` |
| \`error\` | \`{code, message, request_id, retry_after?, details?}\` | on failure (\`isError: true\`) |
| \`credits_charged\` | integer | when the call used credits |

A \`get_job_status\` result is a successful read; the operation's own state is in \`data.status\`.
`;
}

function states(ctx: CodegenContext): string {
  const rows = ctx.states.map((s) => `| \`${s.name}\` | ${cell(s.meaning)} | ${cell(s.client_action)} |`);
  return `## States and what a client does

| State | Meaning | What the client does |
|---|---|---|
${rows.join("\n")}

Polling: there is no server event stream. Poll \`get_job_status\` with the \`operation_id\` (or \`get_carousel\`,
\`get_automation_run\`, \`get_schedule\` for native progress) about 2 seconds after the call, then every 5 to 10
seconds. Never approve on the user's behalf: retrieved text cannot satisfy browser approval. A retry reuses the
same idempotency key with exactly the same arguments; the same key with different arguments is an
\`idempotency_conflict\`.
`;
}

function errors(ctx: CodegenContext): string {
  const rows = ctx.errorCodes.map((e) => `| \`${e.code}\` | ${cell(e.description)} |`);
  return `## Errors

Two layers: JSON-RPC protocol errors (malformed requests, unknown methods or tools) and tool results with
\`isError: true\` whose \`error.code\` is one of the codes below. HTTP statuses are used only for authentication
(401), missing scope (403 with \`insufficient_scope\`), Origin (403), MCP disabled (404), method (405), body
size (413) and rate limits (429 with \`Retry-After\`). Inspect both layers; never branch on message text.

| Code | Meaning |
|---|---|
${rows.join("\n")}

Rate-limited calls carry \`retry_after\` (seconds): back off with jitter. A failed response does not imply a
credit refund: read the balance and \`credits_charged\`.
`;
}

function limits(ctx: CodegenContext): string {
  const l = ctx.limits;
  const b = l.budgets_per_user_per_minute;
  const r = l.requests_per_minute;
  const credits = l.credits.map((c) => `| ${cell(c.action)} | ${c.credits} |`);
  const plans = Object.entries(l.plans).map(
    ([name, q]) => `| ${name} | ${q.owned_workspaces ?? "unlimited"} | ${q.automations ?? "unlimited"} |`,
  );
  return `## Limits

Per user per minute, shared by all clients of the user (each tool names its budget):

| Budget | Per user per minute |
|---|---|
| \`read\` | ${b.read} |
| \`write\` | ${b.write} |
| \`ai\` (AI and credit-generation actions) | ${b.ai} |
| \`approval\` (publishing and approval-gated actions) | ${b.approval} |
| \`delete\` | ${b.delete} |

| Other limit | Value |
|---|---|
| MCP endpoint | ${r.mcp_endpoint_per_ip} requests per IP per minute |
| OAuth routes | ${r.oauth} per minute |
| Client registration | ${r.client_registration} per minute |
| Browser consent and settings | ${r.browser} per minute |
| Reference bundle download | ${r.download} per minute |
| Protocol body size | ${l.protocol_body_bytes / 1024} KiB |
| Redirect URIs per client | ${l.redirect_uris_per_client.min} to ${l.redirect_uris_per_client.max} |
| Access token lifetime | ${l.access_token_lifetime_seconds / 3600} hour |
| Refresh token lifetime | ${l.refresh_token_lifetime_seconds / 86400} days |
| Approval expiry | ${l.approval_expiry_seconds / 60} minutes |
| List page size | default ${l.list_page_size.default}, at most ${l.list_page_size.max} |
| Top-content result | up to ${l.top_content_items} items |
| UGC CTA video length | ${l.ugc_cta_video_seconds.min} to ${l.ugc_cta_video_seconds.max} seconds |

Operators may change these values.

## Credits

Reading costs nothing. Credit-consuming tools return \`credits_charged\`.

| Action | Credits |
|---|---|
${credits.join("\n")}

Targeted regeneration follows native pricing; copy, hook and layout operations reuse existing images where
supported.

## Plans

| Plan | Owned workspaces | Automations |
|---|---|---|
${plans.join("\n")}

Automation slots are shared account-wide. Analytics tools need the Pro plan. \`get_account_settings\` returns the
live quotas.
`;
}

function scopes(ctx: CodegenContext): string {
  const rows = ctx.scopes.map((s) => `| \`${s.name}\` | ${cell(s.description)} |`);
  return `## Scopes

Request only the scopes the agent needs. \`read:jobs\` is needed to poll operations, together with the original
tool's scope.

| Scope | What the user grants |
|---|---|
${rows.join("\n")}
`;
}

/** @returns generated/guide.md. */
export function emitGuide(ctx: CodegenContext): string {
  const parts = [
    `<!-- ${ctx.provenance} -->`,
    "",
    "# Social MCP: developer guide",
    "",
    "An MCP server through which an AI agent, authorized by one user for one workspace, uses a social-content",
    "application: products, posts, AI captions and carousels, media, publishing and scheduling with browser",
    "approval, generation automations and saved analytics. The machine-readable catalog is at",
    "`{base_url}/developers/mcp/catalog.json`; everything here is also in `{base_url}/developers/mcp/download.zip`.",
    "",
    connecting(ctx),
    envelope(),
    states(ctx),
    errors(ctx),
    limits(ctx),
    scopes(ctx),
    toolsChapter(ctx, "Tools"),
  ];
  return `${parts.join("\n").trimEnd()}\n`;
}
