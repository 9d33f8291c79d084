/**
 * Operation and envelope states (service spec 3.1) with what each means and what a client does in it
 * (service spec 3.1 rules, 6.2, 7.4). Read by the catalog and the guide.
 */

export interface StateDoc {
  name: string;
  meaning: string;
  client_action: string;
}

/** The nine states, in the spec's order. */
export const STATES: readonly StateDoc[] = [
  {
    name: "approval_required",
    meaning:
      "The exact request is recorded and waits for the user's approval in the browser; nothing has run.",
    client_action:
      "Show `approval_url` to the user and never approve for them. Then poll `get_job_status` until the user decides; the request expires after 30 minutes (`denied`).",
  },
  {
    name: "approved",
    meaning: "The user approved; the work is queued and will run exactly once.",
    client_action: "Poll `get_job_status`: about 2 seconds first, then every 5 to 10 seconds.",
  },
  {
    name: "queued",
    meaning: "Accepted and waiting for a background worker.",
    client_action:
      "Poll `get_job_status` (or the tool-specific read, e.g. `get_carousel`): about 2 s first, then every 5-10 s.",
  },
  {
    name: "running",
    meaning: "A worker is executing the handler.",
    client_action:
      "Keep polling (every 5 to 10 seconds). Do not generate a new idempotency key while it runs: that could do the work twice.",
  },
  {
    name: "succeeded",
    meaning:
      "The handler returned; `data` holds native run or provider state. It does not mean generation or publication has finished (a carousel tool succeeds once its render job is queued).",
    client_action:
      "Read `data`; follow the native records (`get_carousel`, `get_automation_run`, `get_schedule`) for progress.",
  },
  {
    name: "failed",
    meaning:
      "The call or its handler failed with a validation, access or application error; `error` says which (`isError: true` when the call itself failed).",
    client_action:
      "Correct the cause named by `error.code`, then call again with a new idempotency key: the failed call's key keeps its outcome (a retry with it answers the same error), except after `rate_limited` and `internal_error`, which may be retried with the same key and arguments.",
  },
  {
    name: "dispatch_failed",
    meaning: "The work could not be handed to the queue; automatic recovery also retries it.",
    client_action:
      "Retry the identical call with the same idempotency key (it dispatches the operation again and answers `queued`), or wait and poll.",
  },
  {
    name: "denied",
    meaning: "The user declined, or the approval expired after 30 minutes.",
    client_action:
      "Stop. Repeating the call answers `denied` again (`data.decision`: declined or expired). Only a new intent from the user justifies a new request (with a new idempotency key).",
  },
  {
    name: "outcome_unknown",
    meaning:
      "The worker stopped while running it, or it overran, and the outcome cannot be confirmed; it is never run again.",
    client_action:
      "Reconcile first: inspect the existing records (posts, schedules, deliveries, runs) before using a new idempotency key, which could create a second action.",
  },
];
