/**
 * get_job_status (service spec 2.4, 2.5, 3.1): the state of an operation this connection started, in
 * `data.status`; `data.approval_url` while it waits for approval, `data.result` once succeeded, `data.error`
 * (with its `retry`) on failed/outcome_unknown. Needs `read:jobs` (checked by the pipeline) and the scope of
 * the tool that started it (checked here: otherwise `not_found`). `wait_seconds` long-polls
 * (src/domain/long-poll.ts); `next` names the following call (src/domain/operations/status.ts jobFollowUp).
 */
import { changeKey } from "../../db/change-feed.ts";
import { readWhenChanged } from "../../domain/long-poll.ts";
import { type JobStatus, jobFollowUp, jobSettled, jobStatus } from "../../domain/operations/status.ts";
import type { ToolHandlers } from "../../../generated/tool-types.ts";

export const handler: ToolHandlers["get_job_status"] = {
  async execute(input, ctx) {
    const wait = input.wait_seconds ?? 0;
    const { value } = await readWhenChanged<JobStatus>(ctx.app, ctx.auth.userId, wait, ctx.signal, {
      key: changeKey("operation", input.operation_id),
      read: () => jobStatus(ctx.app, ctx.db, ctx.auth, input.operation_id),
      state: (s) => s.status,
      settled: jobSettled,
    });
    return { data: value, next: jobFollowUp(value, wait > 0) };
  },
};
