/**
 * Minimal `--flag value` parsing for the CLI (node:util parseArgs, strict: unknown flags are errors).
 */
import { parseArgs } from "node:util";

export class UsageError extends Error {
  override name = "UsageError";
}

/** Parses string options; `required` names must be present. @throws UsageError naming the flag. */
export function flags(
  argv: string[],
  names: string[],
  required: string[] = [],
): Record<string, string | undefined> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: Object.fromEntries(names.map((n) => [n, { type: "string" as const }])),
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | undefined>;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  for (const r of required) if (!values[r]) throw new UsageError(`missing --${r}`);
  return values as Record<string, string | undefined>;
}
