/**
 * Imported first by src/main.ts (before any module that the tracing instrumentations patch): starts
 * OpenTelemetry tracing when the standard OTEL_* variables ask for it (./tracing-sdk.ts), and does nothing
 * else, loading nothing, when they do not. `tracing` is the started SDK (flushed and stopped by the
 * command's shutdown), or undefined; `tracingProblem` the error of a start that was refused (an
 * unsupported exporter or protocol), which the command reports as a configuration error.
 */
import { type StartedTracing, startTracing, tracingRequested } from "./tracing-sdk.ts";

export let tracingProblem: Error | undefined;

export const tracing: StartedTracing | undefined = (() => {
  if (!tracingRequested(process.env)) return undefined;
  try {
    return startTracing(process.env);
  } catch (err) {
    tracingProblem = err as Error;
    return undefined;
  }
})();
