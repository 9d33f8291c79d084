/**
 * generate_carousel (queued, service spec 3.1 rule 2, 4.2 rule 5, 8): `accept` (caller's transaction) checks
 * the owned product, design, slide count and format, charges 5 credits per generated image (stored CTA
 * artwork as the last slide is free) and creates the draft carousel post, the queued run and its pending
 * slides; `execute` (worker) generates the slide images. Poll get_carousel with the post id.
 */
import type { ToolInputs, ToolOutputs, ToolResults } from "../../../generated/tool-types.ts";
import { acceptCarouselGeneration } from "../../domain/carousels.ts";
import { executeCarouselRun } from "../../domain/carousels-run.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../runtime/types.ts";
import { acceptedRun, runMeta, transactionOf } from "./run-meta.ts";

type Accepted = ToolOutputs["generate_carousel"];

export const handler: ToolHandler<
  ToolInputs["generate_carousel"],
  ToolResults["generate_carousel"],
  Accepted
> = {
  async accept(input, ctx) {
    const a = await acceptCarouselGeneration(transactionOf(ctx), ownerOf(ctx.auth), input, runMeta(ctx));
    return { data: { post_id: a.post_id, run_id: a.run_id }, credits_charged: a.credits_charged };
  },
  async execute(_input, ctx, accepted) {
    const { run_id } = acceptedRun(accepted);
    const out = await executeCarouselRun(ctx.app, ownerOf(ctx.auth), run_id, {
      signal: ctx.signal,
      progress: (done, total) => ctx.progress(done, total, `${done} of ${total} slides generated`),
    });
    return {
      data: {
        post_id: out.post_id,
        run_id: out.run_id,
        status: out.status as ToolResults["generate_carousel"]["status"],
      },
    };
  },
};
