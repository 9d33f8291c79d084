/**
 * Graceful shutdown of `social-mcp all|serve|worker` (src/main.ts): the stop steps run in order; a step that
 * fails is logged by its error's class and code only (service spec 7 rule 7: the message can carry user
 * data, src/log.ts `logError`) and the next steps still run.
 */
import { type Logger, logError } from "../log.ts";

/** Runs `stops` one after the other; never throws. */
export async function runStopSteps(stops: ReadonlyArray<() => Promise<void>>, log: Logger): Promise<void> {
  for (const [step, stop] of stops.entries())
    await stop().catch((err: unknown) => logError(log, err, { step }, "shutdown step failed"));
}
