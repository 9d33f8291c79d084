/**
 * regenerate_carousel_slide (queued, service spec 1.7, 8): `accept` checks the owned carousel and position,
 * refuses while another run is in progress, charges 5 credits (0 for a slide reusing stored CTA artwork) and
 * queues a one-slide run; `execute` (worker) generates the new image. Poll get_carousel with the post id.
 */
import type { ToolInputs, ToolOutputs, ToolResults } from "../../../generated/tool-types.ts";
import { acceptSlideRegeneration } from "../../domain/carousels/carousels.ts";
import type { ToolHandler } from "../../tool-contract.ts";
import { acceptCarouselRun, executeAcceptedRun } from "./run-meta.ts";

type Accepted = ToolOutputs["regenerate_carousel_slide"];

export const handler: ToolHandler<
  ToolInputs["regenerate_carousel_slide"],
  ToolResults["regenerate_carousel_slide"],
  Accepted
> = {
  // Resumes from the slides already rendered when its worker died (docs/operations.md "Leases").
  resumable: true,
  async accept(input, ctx) {
    return acceptCarouselRun(input, ctx, acceptSlideRegeneration);
  },
  async execute(_input, ctx, accepted) {
    return executeAcceptedRun(ctx, accepted);
  },
};
