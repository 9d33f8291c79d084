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

/**
 * The rules, in the order an agent meets them. Tool descriptions and results repeat what each step needs
 * (`next`, `error.retry`), for hosts that never show these instructions to the model.
 */
export const AGENT_RULES: readonly AgentRule[] = [
  {
    title: "Read the envelope and follow next.",
    text:
      "Every tool result has structuredContent {request_id, status, data?, operation_id?, approval_url?, credits_charged?, next?, error?}; " +
      "next {tool, arguments, after_seconds} is the call to make next, also said in plain words in a second text block. " +
      "A listed output object that lists no `required` always has all of its fields (null when empty).",
  },
  {
    title: "Never approve for the user.",
    text:
      "status approval_required: show approval_url to the user (data.summary says what it asks; data.expires_at when the link expires) " +
      "and let them decide in their browser; nothing runs until they approve. Never open, submit or guess an approval yourself.",
  },
  {
    title: "One idempotency key per action.",
    text:
      "Every write tool needs idempotency_key, a new UUID for each new action. Repeat a call with the same key and the same arguments only " +
      "when its answer was lost, or when error.retry is same_key (nothing was stored); the key keeps its first answer. " +
      "After any other error, fix the cause and use a new key (error.retry new_key; after_user_action: a person acts first at details.action_url).",
  },
  {
    title: "Wait with long polls.",
    text:
      "status queued/approved/running: call get_job_status (or get_carousel, get_automation_run) with wait_seconds 25: it answers as soon as " +
      "the state changes. succeeded means the handler returned, so follow next (get_carousel, get_automation_run, get_schedule). " +
      "Stop after denied; after outcome_unknown inspect existing records before using a new key; on rate_limited wait error.retry_after seconds (with jitter).",
  },
  {
    title: "TikTok only through review.",
    text:
      "publish_post and schedule_post refuse TikTok accounts: TikTok posts are finished by the user in the service's review page " +
      "(deliveries in needs_review); tell the user to open it, never try another way.",
  },
  {
    title: "Read the guide when in doubt.",
    text: "resources/read docs://social-mcp/guide (every tool, state and error) and docs://social-mcp/network-rules (what each network accepts).",
  },
];

/** The `instructions` string of server/discover and initialize. */
export const INSTRUCTIONS = [INSTRUCTIONS_INTRO, ...AGENT_RULES.map((r) => `${r.title} ${r.text}`)].join(
  "\n",
);
