/**
 * The rules an agent must follow, written once: the server sends them as `instructions` (server/discover on
 * 2026-07-28, initialize on the legacy revisions; MCP basic/lifecycle "instructions") and codegen prints
 * them, word for word, as the guide's "Rules for agents" (codegen/emit/guide-apps.ts). Service spec 3.1
 * (states, approval), 6 (idempotency), 1.11 (TikTok only through the review UI).
 */

/** One rule: a short imperative `title` and the `text` that says how. */
export interface AgentRule {
  title: string;
  text: string;
}

/** What the service is, before the rules. */
export const INSTRUCTIONS_INTRO =
  "Social MCP gives you one user's social-content workspace (the one chosen at consent) through tools.";

/** The rules, in the order an agent meets them. */
export const AGENT_RULES: readonly AgentRule[] = [
  {
    title: "Read the envelope.",
    text:
      "Every tool result has structuredContent {request_id, status, data?, operation_id?, approval_url?, credits_charged?, error?}; " +
      "failures set isError and error {code, message, request_id, retry_after?, details?}. " +
      "A listed output object that lists no `required` always has all of its fields (null when empty).",
  },
  {
    title: "Never approve for the user.",
    text:
      "status approval_required: show approval_url to the user and let them decide in their browser; " +
      "nothing runs until they approve. Never open, submit or guess an approval yourself.",
  },
  {
    title: "One idempotency key per action.",
    text:
      "Every write tool needs idempotency_key (a new UUID for each new action). Retry a failed or lost call " +
      "with the same key and the same arguments; a new key is a new action.",
  },
  {
    title: "Poll at the right pace.",
    text:
      "status queued/approved/running: poll get_job_status with operation_id about 2 s after the call, then every 5-10 s; " +
      "succeeded means the handler returned, so follow up with get_carousel (post_id), get_automation_run (kind, run_id) or get_schedule. " +
      "Stop after denied; after outcome_unknown inspect existing records before retrying; on rate_limited wait error.retry_after seconds (with jitter).",
  },
  {
    title: "TikTok only through review.",
    text:
      "publish_post and schedule_post refuse TikTok accounts: TikTok posts are finished by the user in the service's review page " +
      "(deliveries in needs_review); tell the user to open it, never try another way.",
  },
];

/** The `instructions` string of server/discover and initialize. */
export const INSTRUCTIONS = [INSTRUCTIONS_INTRO, ...AGENT_RULES.map((r) => `${r.title} ${r.text}`)].join(
  "\n",
);
