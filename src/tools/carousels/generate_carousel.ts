/**
 * generate_carousel (queued, service spec 3.1 rule 2, 4.2 rule 5, 8): `accept` (caller's transaction) checks
 * the owned product, design, slide count and format, charges 5 credits per generated image (stored CTA
 * artwork as the last slide is free) and creates the draft carousel post, the queued run and its pending
 * slides; `execute` (worker) hands the run to the render queue (its own job, lease and per-slide checkpoints)
 * and succeeds with the post and run ids. Poll get_carousel with the post id.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { acceptCarouselGeneration } from "../../domain/carousels/carousels.ts";
import { acceptCarouselRun, handOverAcceptedRun } from "./run-meta.ts";

export const handler: ToolHandlers["generate_carousel"] = {
  async accept(input, ctx) {
    return acceptCarouselRun(input, ctx, acceptCarouselGeneration);
  },
  async execute(_input, ctx, accepted) {
    return handOverAcceptedRun(ctx, accepted);
  },
};
