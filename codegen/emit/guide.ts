/**
 * Emits generated/guide.md, the developer guide (DESIGN.md section 2): connecting (OAuth steps), calling
 * tools, the rules for agents, the envelope, states and what a client does in each, errors, limits, credits,
 * plans, scopes, network rules, views (MCP Apps), prompts, and one section per tool with an example call. Addresses are written as `{base_url}` (the guide is static).
 */
import type { CodegenContext } from "../context.ts";
import { PRICES } from "../../src/domain/account/prices.ts";
import { RETRY_ADVICE } from "../../src/errors.ts";
import { errorOccasion } from "../errors-doc.ts";
import { cell, toolsChapter } from "./guide-tools.ts";
import { networkRulesChapter } from "./guide-networks.ts";
import { promptsChapter, rulesChapter, viewsChapter } from "./guide-apps.ts";

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

1. **Challenge.** A request to \`{base_url}/mcp\` without a valid token answers HTTP 401 with
   \`WWW-Authenticate: Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource/mcp", scope="..."\`.
   \`scope\` lists every scope of the service (the same list as \`scopes_supported\`); when the request carried a
   token (invalid, expired or revoked) the challenge adds \`error="invalid_token"\`. Request only the scopes the
   agent needs (see Scopes), not necessarily all of them.
2. **Protected resource metadata** (RFC 9728): \`GET\` that URL. It names the \`resource\` (the exact MCP
   endpoint), the \`authorization_servers\` (the issuer) and \`scopes_supported\`.
3. **Authorization server metadata** (RFC 8414): \`GET {issuer}/.well-known/oauth-authorization-server\` gives
   the \`authorization_endpoint\`, \`token_endpoint\`, \`registration_endpoint\` and \`revocation_endpoint\`, with
   \`code_challenge_methods_supported: ["S256"]\`.
4. **Dynamic client registration** (RFC 7591): \`POST\` JSON to the registration endpoint (HTTP 201 with the
   \`client_id\`). Only public clients: no secret is issued; \`token_endpoint_auth_method\` is \`none\` or omitted
   (any other method is \`invalid_client_metadata\`). 1 to 10 \`redirect_uris\`, each HTTPS or HTTP on loopback (\`localhost\`,
   \`127.0.0.1\`, \`[::1]\`), without fragment, user info or wildcard, never \`0.0.0.0\`. \`grant_types\` defaults to
   \`["authorization_code", "refresh_token"]\`; \`authorization_code\` is required and \`refresh_token\` is the only
   addition. A client registered without \`refresh_token\` gets no refresh token (below). \`response_types\` is
   \`["code"]\`. Bad metadata answers 400 \`invalid_redirect_uri\` or \`invalid_client_metadata\` naming the field.

${code("json", JSON.stringify(registration, null, 2))}

5. **Authorize** in the user's browser: \`GET {base_url}/mcp/oauth/authorize\` with \`response_type=code\`,
   \`client_id\`, \`redirect_uri\`, \`scope\` (space-separated, see Scopes), \`state\`, \`code_challenge\` (base64url
   SHA-256 of a random \`code_verifier\`), \`code_challenge_method=S256\` and \`resource={base_url}/mcp\`. The
   \`redirect_uri\` must equal a registered one exactly, except that HTTP \`127.0.0.1\` and \`[::1]\` URIs match
   with any port (RFC 8252). An empty or absent \`scope\` (or only \`offline_access\`, which is accepted and
   ignored) is granted as every \`read:*\` scope; write scopes are granted only when named; an unknown scope is
   \`invalid_scope\`. The user signs in, picks exactly one workspace and approves (or denies: \`error=access_denied\`);
   the browser is redirected (303) with \`code\`, \`state\` and \`iss\`. Check \`state\` and \`iss\`. An invalid
   request is redirected back with \`error\`, \`state\` and \`iss\` only once the user is signed in; before
   that (and for an unknown client or redirect URI) the browser shows an error page instead.
6. **Token:** \`POST {base_url}/mcp/oauth/token\` (form data) with \`grant_type=authorization_code\`, \`client_id\`,
   \`redirect_uri\` (the same one), \`code\`, \`code_verifier\` and \`resource\`. The answer is
   \`{access_token, token_type: "Bearer", expires_in: 3600, refresh_token, scope}\`; \`refresh_token\` is present
   only when the client is registered with the \`refresh_token\` grant type. The access token lasts one hour, the
   refresh token 30 days. A code lasts 60 seconds and works once: any failed presentation (wrong verifier, client,
   redirect URI or resource, or expired) or a second presentation revokes the connection.
7. **Refresh with rotation:** \`grant_type=refresh_token\` with \`client_id\`, \`refresh_token\`, \`resource\` and an
   optional narrower \`scope\` (it narrows the new access token only; the new refresh token keeps the granted
   scopes; a wider one is \`invalid_scope\`). Each use returns a new refresh token: replace the stored one at once,
   the old one is rejected (\`invalid_grant\`) from then on, and presenting it more than 60 seconds after it was
   used revokes the connection. A client registered without \`refresh_token\` gets \`unauthorized_client\`.
8. **Revoke:** \`POST {base_url}/mcp/oauth/revoke\` with \`token\` and \`client_id\` (HTTP 200, also for an unknown
   token). Revoking either token revokes the whole connection: its access tokens, refresh tokens and codes. The
   user can also revoke the connection in the browser settings; its tokens stop working immediately. Work
   already started is not undone.

Send the access token only in \`Authorization: Bearer ...\`, never in a URL. A token lacking a tool's scope gets
HTTP 403 with \`WWW-Authenticate: Bearer error="insufficient_scope", scope="..."\` naming the scope; only the user
can grant it, in a new consent. OAuth endpoint errors are RFC 6749 JSON errors (\`{error, error_description}\`).

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
| \`approval_url\` | URL | in \`approval_required\` (with \`data: {summary, expires_at}\`) |
| \`error\` | \`{code, message, request_id, retry, retry_after?, details?}\` | on failure (\`isError: true\`) |
| \`credits_charged\` | integer | when the call used credits |
| \`next\` | \`{tool, arguments, after_seconds}\` | when the result has a follow-up |

A \`get_job_status\` result is a successful read; the operation's own state is in \`data.status\`.

\`next\` is the call to make next: a review or queued call names the long poll of \`get_job_status\`
(\`generate_carousel\` names \`get_carousel\`), a finished \`schedule_post\` operation names \`get_schedule\`, a ready
draft carousel names \`schedule_post\`. Where \`next\` is set, \`content\` has a second text block that says the same
step in plain words (and, in \`approval_required\`, the link to show the user).

\`error.retry\` says how to recover, in agreement with the idempotency rules below:

| \`retry\` | What to do |
|---|---|
${Object.entries(RETRY_ADVICE)
  .map(([k, v]) => `| \`${k}\` | ${cell(v)} |`)
  .join("\n")}
`;
}

function states(ctx: CodegenContext): string {
  const rows = ctx.states.map((s) => `| \`${s.name}\` | ${cell(s.meaning)} | ${cell(s.client_action)} |`);
  return `## States and what a client does

| State | Meaning | What the client does |
|---|---|---|
${rows.join("\n")}

Polling: there is no server event stream. Poll \`get_job_status\` with the \`operation_id\` (or \`get_carousel\`,
\`get_automation_run\` for native progress) with \`wait_seconds\` (0 to 25): the call answers as soon as the state
changes, or at the deadline with the unchanged state, and counts once against the budgets. Without it, poll about
2 seconds after the call, then every 5 to 10 seconds. Never approve on the user's behalf: retrieved text cannot
satisfy browser approval.

Carousels render as jobs of their own: \`generate_carousel\`, \`regenerate_carousel_slide\` and \`retry_carousel\`
answer \`queued\`; their operation creates the post and run (or marks the slides), queues the render and
\`succeeds\` with \`post_id\` and \`run_id\` before any slide is drawn. Follow the slides with \`get_carousel\`
until the run is \`succeeded\` or \`failed\`. A worker that stops mid-render is replaced: the render resumes from
the slides already ready (none is drawn twice, credits are charged once). An operation whose worker stopped
while it was \`running\` becomes \`outcome_unknown\` and is never run again.

### Approved content

A browser approval of \`publish_post\`, \`schedule_post\` or \`approve_carousel\` binds what the page showed:
the slides in order, the caption, the title, the media and, for Pinterest, the Pin's link (the product URL at
the request) and board. A change before the decision makes the request stale (approving it is refused); the
approved action checks the post again, and every delivery carries the approval's fingerprint, compared with
the post before anything is sent: a post that changed fails the delivery and nothing reaches the network.
While a post has a pending schedule or a delivery not yet published, \`regenerate_carousel_slide\`,
\`retry_carousel\`, a new caption and a new \`product_url\` that is a pending Pin's link are
\`validation_failed\`, naming the schedule or delivery; the user can cancel a schedule on the posts page in the
browser (no tool can). A post may go to more networks: publish or schedule it to accounts that do not have it
yet (one that has it is \`validation_failed\`); TikTok posts are picked on \`/review\`.

### Idempotency keys

Every write tool takes an \`idempotency_key\` (UUID), unique per connection and tool (a new connection is a new
namespace). The rules are those of Stripe's idempotent requests: the first call's outcome is recorded with its
arguments, and a retry reuses the same key with exactly the same arguments:

- **The outcome of the first call is kept, success or failure.** A call answered without \`isError\`
  (including \`approval_required\`, \`queued\` and \`dispatch_failed\`) and a call that failed with a tool
  error (\`not_found\`, \`validation_failed\`, \`forbidden\`, \`account_setup_required\`, ...) are both
  recorded: the exact retry is answered from the record with the first envelope (same \`operation_id\`, or the
  same error; nothing runs again), before the per-user budget, so it does not count against it. A
  \`dispatch_failed\` operation is dispatched again by the retry, which then answers \`queued\`.
- **Not kept:** \`rate_limited\` and \`internal_error\` (nothing ran, or the service failed: send the same key
  and arguments again), and a call refused before it started (invalid arguments, a missing scope, a plan the
  user lacks, an HTTP-level refusal).
- **The same key with other arguments** is \`idempotency_conflict\` while the record exists, including after a
  failed first call: once the cause of a failure is fixed, send the corrected call with a new key.
- **Concurrent duplicates** wait for the first call, then get its envelope.
- **A denied request stays denied:** repeating a request the user declined, or that expired, answers
  \`denied\` with \`data.decision\` (\`declined\` or \`expired\`) and \`data.decided_at\`, and no
  \`approval_url\`. Only a new intent from the user justifies a new request (a new key).
- Records are kept 7 days (longer while their operation is not final); after that the key is a new request.

An operation that failed or whose outcome is unknown after it was accepted keeps its key (the retry answers the
original envelope), so a new attempt needs a new key: after \`failed\` once the cause is fixed, after
\`outcome_unknown\` only once the existing records show the action did not happen.
`;
}

function errors(ctx: CodegenContext): string {
  const rows = ctx.errorCodes.map(
    (e) => `| \`${e.code}\` | ${cell(e.description)} | ${cell(errorOccasion(e.code))} |`,
  );
  return `## Errors

Three layers (service spec 7); inspect all of them and never branch on message text:

| Layer | Form | When |
|---|---|---|
| HTTP | status code, no JSON-RPC body | 401 missing or invalid token (\`WWW-Authenticate\` challenge, see Connecting); 403 a known tool whose scope the token lacks (\`insufficient_scope\` challenge) or an \`Origin\` that is not allowed; 404 MCP disabled or a \`Host\` that is not the configured resource's; 405 GET or DELETE; 413 body over 256 KiB; 415 \`Content-Type\` not JSON; 429 the per-IP request limit, with \`Retry-After\` (seconds) |
| JSON-RPC | error object \`{code, message, data?}\` echoing the request id | -32700 unparsable JSON and -32600 not one JSON-RPC request (HTTP 400); -32020 \`MCP-Protocol-Version\`, \`Mcp-Method\` or \`Mcp-Name\` missing or differing from the body, -32602 a required \`_meta\` key missing, -32022 unsupported protocol version (HTTP 400); -32601 unknown or removed method (HTTP 404 with ${ctx.protocolRevisions[0]}, 200 with legacy revisions); -32602 unknown tool, malformed \`params\` or bad \`tools/list\` cursor (HTTP 200) |
| Tool | HTTP 200, \`isError: true\`, envelope \`status: "failed"\` and \`error {code, message, request_id, retry, retry_after?, details?}\` | a domain failure, with one of the codes below |

An operation that fails later (in the worker) is not an \`isError\` result: \`get_job_status\` answers successfully
and shows \`data.status\` \`failed\` or \`outcome_unknown\` with \`data.error {code, message, retry, details?}\`.
An unknown argument's error lists the tool's arguments; a \`not_found\` for one item of a list names its JSON
pointer (\`details.path\`, e.g. \`/social_account_ids/1\`); messages name pages with absolute URLs.

| Code | Meaning | Where it appears |
|---|---|---|
${rows.join("\n")}

Rate-limited calls carry \`retry_after\` (seconds) or an HTTP \`Retry-After\` header: back off with jitter. A failed
response does not imply a credit refund: read the balance and \`credits_charged\`.
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

Per user per minute, shared by all clients and connections of the user. Each tool names its budget (the
Tools table below). A call is counted after its input validation and plan check, so a call refused there is not
counted, and neither is an exact retry of a finished write (answered from its idempotency record). A spent
budget gives the tool error \`rate_limited\` with \`retry_after\` (seconds).

| Budget | Per user per minute |
|---|---|
| \`read\` | ${b.read} |
| \`write\` | ${b.write} |
| \`ai\` (AI and credit-generation actions) | ${b.ai} |
| \`approval\` (publishing and approval-gated actions) | ${b.approval} |
| \`delete\` | ${b.delete} |

| Other limit | Value |
|---|---|
| MCP endpoint (every request, HTTP 429 with \`Retry-After\`) | ${r.mcp_endpoint_per_ip} requests per IP per minute |
| OAuth routes | ${r.oauth} per IP per minute |
| Client registration | ${r.client_registration} per IP per minute |
| Browser consent and settings | ${r.browser} per IP per minute |
| Reference bundle download | ${r.download} per IP per minute |
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

Reading costs nothing, and so does text generation (\`generate_captions\`, \`generate_ugc_hooks\`: \`credits_charged: 0\`).
Credits are charged when the work is accepted: at the call for \`generate_carousel\`, \`regenerate_carousel_slide\`
and \`retry_carousel\` (envelope \`credits_charged\`), when an approved \`run_automation\` starts its run (its result's
\`credits_charged\`), and at each scheduled run of an enabled automation. A balance that is too low gives
\`forbidden\` (a scheduled run is recorded as failed) and nothing is charged. Each tool's credits are in its
section below.

| Action | Credits |
|---|---|
${credits.join("\n")}

Regenerating one slide costs one image (${PRICES.generated_image}); a checkpoint retry costs one image per slide generated again; a
slide that reuses stored CTA artwork costs nothing.

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

Request only the scopes the agent needs. An empty or absent \`scope\` (or only \`offline_access\`, which is
accepted and ignored) is granted as every \`read:*\` scope; write scopes are granted only when named. \`read:jobs\`
is needed to poll operations with \`get_job_status\`, together with the scope of the tool that started the
operation (without it the operation is \`not_found\`). \`tools/list\` shows only the tools the token's scopes
allow.

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
    rulesChapter(),
    envelope(),
    states(ctx),
    errors(ctx),
    limits(ctx),
    scopes(ctx),
    networkRulesChapter(),
    viewsChapter(ctx),
    promptsChapter(),
    toolsChapter(ctx, "Tools"),
  ];
  return `${parts.join("\n").trimEnd()}\n`;
}
