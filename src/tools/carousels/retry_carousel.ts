/**
 * retry_carousel (queued, checkpoint retry, service spec 1.7, 8): `accept` checks the owned carousel, refuses
 * while a run is in progress or when nothing failed, charges 5 credits per failed or unfinished slide only
 * and queues a run of those slides; ready slides are kept. `execute` (worker) hands the run to the render
 * queue and succeeds with the post and run ids.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { acceptCarouselRetry } from "../../domain/carousels/regenerate.ts";
import { acceptCarouselRun, handOverAcceptedRun } from "./run-meta.ts";

export const handler: ToolHandlers["retry_carousel"] = {
  async accept(input, ctx) {
    return acceptCarouselRun(input, ctx, acceptCarouselRetry);
  },
  async execute(_input, ctx, accepted) {
    return handOverAcceptedRun(ctx, accepted);
  },
};
