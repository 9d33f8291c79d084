/**
 * regenerate_carousel_slide (queued, service spec 1.7, 8): `accept` checks the owned carousel and position,
 * refuses while another run is in progress, charges 5 credits (0 for a slide reusing stored CTA artwork) and
 * queues a one-slide run; `execute` (worker) generates the new image. Poll get_carousel with the post id.
 */
import type { ToolInputs, ToolOutputs, ToolResults } from "../../../generated/tool-types.ts";
import { acceptSlideRegeneration } from "../../domain/carousels.ts";
import { executeCarouselRun } from "../../domain/carousels-run.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../runtime/types.ts";
import { acceptedRun, runMeta, transactionOf } from "./run-meta.ts";

type Accepted = ToolOutputs["regenerate_carousel_slide"];

export const handler: ToolHandler<
  ToolInputs["regenerate_carousel_slide"],
  ToolResults["regenerate_carousel_slide"],
  Accepted
> = {
  async accept(input, ctx) {
    const a = await acceptSlideRegeneration(transactionOf(ctx), ownerOf(ctx.auth), input, runMeta(ctx));
    return { data: { post_id: a.post_id, run_id: a.run_id }, credits_charged: a.credits_charged };
  },
  async execute(_input, ctx, accepted) {
    const { run_id } = acceptedRun(accepted);
    const out = await executeCarouselRun(ctx.app, ownerOf(ctx.auth), run_id, { signal: ctx.signal });
    return {
      data: {
        post_id: out.post_id,
        run_id: out.run_id,
        status: out.status as ToolResults["regenerate_carousel_slide"]["status"],
      },
    };
  },
};
