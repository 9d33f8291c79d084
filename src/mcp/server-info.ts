/**
 * The server's identity and instructions, returned by server/discover (2026-07-28), initialize (legacy) and
 * on every 2026-07-28 result as `_meta["io.modelcontextprotocol/serverInfo"]`.
 */
import { createRequire } from "node:module";

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

export const SERVER_INFO = { name: "social-mcp", title: "Social MCP", version: pkg.version } as const;

/** Capabilities: tools only (no prompts, resources, logging or list-changed notifications). */
export const SERVER_CAPABILITIES = { tools: {} } as const;

/** How an agent should use the service: approvals, polling, idempotency (service spec 3.1, 6). */
export const INSTRUCTIONS = [
  "Social MCP gives you one user's social-content workspace (the one chosen at consent) through tools.",
  "Every tool result has structuredContent {request_id, status, data?, operation_id?, approval_url?, credits_charged?, error?};",
  "error is {code, message, request_id, retry_after?, details?} and failures set isError. Listed output schemas are shapes:",
  "an object that lists no `required` always has all of its fields (null when empty).",
  "Mutations need an idempotency_key (UUID): retry with the same key and the same arguments; a new key is a new action.",
  "status approval_required: show approval_url to the user; never approve for them. Poll get_job_status with operation_id.",
  "status queued/approved/running: poll get_job_status (about 2 s first, then every 5-10 s); succeeded means the handler returned,",
  "so follow up with get_carousel (post_id), get_automation_run (kind, run_id) or get_schedule. Stop after denied;",
  "after outcome_unknown inspect existing records before retrying. On rate_limited wait error.retry_after seconds (with jitter).",
].join(" ");
