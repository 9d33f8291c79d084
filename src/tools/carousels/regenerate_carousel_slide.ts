/**
 * regenerate_carousel_slide (queued, service spec 1.7, 8): `accept` checks the owned carousel and position,
 * refuses while another run is in progress, charges 5 credits (0 for a slide reusing stored CTA artwork) and
 * queues a one-slide run; `execute` (worker) hands it to the render queue and succeeds with the post and run
 * ids. Poll get_carousel with the post id.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { acceptSlideRegeneration } from "../../domain/carousels/regenerate.ts";
import { acceptCarouselRun, handOverAcceptedRun } from "./run-meta.ts";

export const handler: ToolHandlers["regenerate_carousel_slide"] = {
  async accept(input, ctx) {
    return acceptCarouselRun(input, ctx, acceptSlideRegeneration);
  },
  async execute(_input, ctx, accepted) {
    return handOverAcceptedRun(ctx, accepted);
  },
};
