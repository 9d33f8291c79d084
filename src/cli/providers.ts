/**
 * Operator command `admin providers check`: asks each openai-compatible AI provider's `GET {base}/models`
 * whether its configured model is listed (src/providers/model-check.ts) and prints what it found, per
 * provider: the kind, `local` or the model with its variable, the endpoint, the outcome, how many models
 * were listed and those that would fit. Never prints a key. The start runs the same check and stops on a
 * model that is not listed; this command only reports.
 */
import type { Config } from "../config/index.ts";
import { checkProviderModels, type ModelCheck } from "../providers/model-check.ts";
import { UsageError } from "./args.ts";

export const PROVIDERS_USAGE = "admin providers check";

/** One provider's line of the report: the check, or `local` for a provider that calls nothing. */
export type ProviderReport = ModelCheck | { kind: "text" | "image" | "video"; provider: "local" };

/** Runs `admin providers <verb>`. @throws UsageError for another verb or a missing config. */
export async function runProvidersAdmin(
  argv: string[],
  config?: Config,
): Promise<{ providers: ProviderReport[]; ok: boolean }> {
  if (argv.length !== 1 || argv[0] !== "check") throw new UsageError(`usage: ${PROVIDERS_USAGE}`);
  if (!config) throw new UsageError("admin providers check needs the service configuration");
  const checks = await checkProviderModels(config);
  const providers = (["text", "image", "video"] as const).map(
    (kind): ProviderReport => checks.find((c) => c.kind === kind) ?? { kind, provider: "local" },
  );
  return { providers, ok: checks.every((c) => c.status !== "not_listed") };
}
