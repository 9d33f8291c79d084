/**
 * retry_carousel (queued, checkpoint retry, service spec 1.7, 8): `accept` checks the owned carousel, refuses
 * while a run is in progress or when nothing failed, charges 5 credits per failed or unfinished slide only
 * and queues a run of those slides; ready slides are kept. `execute` (worker) generates them.
 */
import type { ToolInputs, ToolOutputs, ToolResults } from "../../../generated/tool-types.ts";
import { acceptCarouselRetry } from "../../domain/carousels/carousels.ts";
import type { ToolHandler } from "../../tool-contract.ts";
import { acceptCarouselRun, executeAcceptedRun } from "./run-meta.ts";

type Accepted = ToolOutputs["retry_carousel"];

export const handler: ToolHandler<ToolInputs["retry_carousel"], ToolResults["retry_carousel"], Accepted> = {
  // Resumes from the slides already rendered when its worker died (docs/operations.md "Leases").
  resumable: true,
  async accept(input, ctx) {
    return acceptCarouselRun(input, ctx, acceptCarouselRetry);
  },
  async execute(_input, ctx, accepted) {
    return executeAcceptedRun(ctx, accepted);
  },
};
