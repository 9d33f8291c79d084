/**
 * get_automation_run: one owned run addressed by `kind` and `run_id` (service spec 2.7, 3.1 rule 2).
 * `wait_seconds` long-polls until the run's status changes (src/domain/long-poll.ts); `next` repeats the poll
 * while the run is queued or running.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { changeKey } from "../../db/change-feed.ts";
import { type AutomationRunView, getAutomationRun } from "../../domain/automations/runs-read.ts";
import { MAX_WAIT_SECONDS, readWhenChanged } from "../../domain/long-poll.ts";
import { ownerOf } from "../../domain/owner.ts";
import { runItem, runVideo } from "./run-item.ts";

const inProgress = (r: AutomationRunView) => r.status === "queued" || r.status === "running";

export const handler: ToolHandlers["get_automation_run"] = {
  async execute(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const wait = input.wait_seconds ?? 0;
    const { value: run } = await readWhenChanged<AutomationRunView>(
      ctx.app,
      ctx.auth.userId,
      wait,
      ctx.signal,
      {
        key: changeKey("automation_run", input.run_id),
        read: () => getAutomationRun(ctx.db, owner, input.kind, input.run_id),
        state: (r) => r.status,
        settled: (r) => !inProgress(r),
      },
    );
    return {
      data: { ...runItem(run), video: runVideo(run) },
      next: inProgress(run)
        ? {
            tool: "get_automation_run",
            arguments: { kind: input.kind, run_id: run.run_id, wait_seconds: MAX_WAIT_SECONDS },
            after_seconds: wait > 0 ? 0 : 5,
          }
        : undefined,
    };
  },
};
