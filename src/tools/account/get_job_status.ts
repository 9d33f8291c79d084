/**
 * get_job_status (service spec 2.4, 2.5, 3.1): the state of an operation this connection started, in
 * `data.status`; `data.result` once succeeded, `data.error` on failed/outcome_unknown. Needs `read:jobs`
 * (checked by the pipeline) and the scope of the tool that started it (checked here: otherwise `not_found`).
 */
import { jobStatus } from "../../domain/operations/status.ts";
import type { ToolHandlers } from "../../../generated/tool-types.ts";

export const handler: ToolHandlers["get_job_status"] = {
  async execute(input, ctx) {
    return { data: await jobStatus(ctx.db, ctx.app.sealer, ctx.auth, input.operation_id) };
  },
};
