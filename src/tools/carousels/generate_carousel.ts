/**
 * generate_carousel (queued, service spec 3.1 rule 2, 4.2 rule 5, 8): `accept` (caller's transaction) checks
 * the owned product, design, slide count and format, charges 5 credits per generated image (stored CTA
 * artwork as the last slide is free) and creates the draft carousel post, the queued run and its pending
 * slides; `execute` (worker) generates the slide images. Poll get_carousel with the post id.
 */
import type { ToolInputs, ToolOutputs, ToolResults } from "../../../generated/tool-types.ts";
import { acceptCarouselGeneration } from "../../domain/carousels/carousels.ts";
import type { ToolHandler } from "../../tool-contract.ts";
import { acceptCarouselRun, executeAcceptedRun } from "./run-meta.ts";

type Accepted = ToolOutputs["generate_carousel"];

export const handler: ToolHandler<
  ToolInputs["generate_carousel"],
  ToolResults["generate_carousel"],
  Accepted
> = {
  // Resumes from the slides already rendered when its worker died (docs/operations.md "Leases").
  resumable: true,
  async accept(input, ctx) {
    return acceptCarouselRun(input, ctx, acceptCarouselGeneration);
  },
  async execute(_input, ctx, accepted) {
    return executeAcceptedRun(ctx, accepted, (done, total) =>
      ctx.progress(done, total, `${done} of ${total} slides generated`),
    );
  },
};
