/**
 * retry_carousel (queued, checkpoint retry, service spec 1.7, 8): `accept` checks the owned carousel, refuses
 * while a run is in progress or when nothing failed, charges 5 credits per failed or unfinished slide only
 * and queues a run of those slides; ready slides are kept. `execute` (worker) generates them.
 */
import type { ToolInputs, ToolOutputs, ToolResults } from "../../../generated/tool-types.ts";
import { acceptCarouselRetry } from "../../domain/carousels.ts";
import { executeCarouselRun } from "../../domain/carousels-run.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../runtime/types.ts";
import { acceptedRun, runMeta, transactionOf } from "./run-meta.ts";

type Accepted = ToolOutputs["retry_carousel"];

export const handler: ToolHandler<ToolInputs["retry_carousel"], ToolResults["retry_carousel"], Accepted> = {
  async accept(input, ctx) {
    const a = await acceptCarouselRetry(transactionOf(ctx), ownerOf(ctx.auth), input, runMeta(ctx));
    return { data: { post_id: a.post_id, run_id: a.run_id }, credits_charged: a.credits_charged };
  },
  async execute(_input, ctx, accepted) {
    const { run_id } = acceptedRun(accepted);
    const out = await executeCarouselRun(ctx.app, ownerOf(ctx.auth), run_id, { signal: ctx.signal });
    return {
      data: {
        post_id: out.post_id,
        run_id: out.run_id,
        status: out.status as ToolResults["retry_carousel"]["status"],
      },
    };
  },
};
