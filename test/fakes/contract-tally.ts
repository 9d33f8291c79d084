/**
 * Counts of the contract check in this process (test only): requests checked and violations found per
 * provider, the deliberate violations (taken and asserted by their tests) apart. When TEST_CONTRACT_TALLY
 * names a file (test/run.ts sets it), each test process appends its counts to it as one JSON line at exit, and
 * the run prints the sums (docs/testing.md "Provider contracts").
 */
import { appendFileSync } from "node:fs";
import type { ProviderName } from "./contract.ts";

export interface Tally {
  checked: number;
  /** Violations no test took: each one failed the test that caused it. */
  violations: number;
  /** Violations a test provoked on purpose and asserted (`takeViolations`). */
  deliberate: number;
  /** Answers checked against the response schemas. */
  answers: number;
}

const tally = new Map<ProviderName, Tally>();
let hooked = false;

/** The counters of `provider` in this process, created on first use. */
export function tallyOf(provider: ProviderName): Tally {
  let t = tally.get(provider);
  if (!t) {
    t = { checked: 0, violations: 0, deliberate: 0, answers: 0 };
    tally.set(provider, t);
  }
  const file = process.env.TEST_CONTRACT_TALLY;
  if (file && !hooked) {
    hooked = true;
    process.on("exit", () => {
      appendFileSync(file, `${JSON.stringify(Object.fromEntries(tally))}\n`);
    });
  }
  return t;
}

/** Sums the lines of a tally file into one line per provider, e.g. `x: 120 requests checked, 0 violations`. */
export function summarize(lines: string[]): string[] {
  const sum = new Map<string, Tally>();
  for (const line of lines) {
    if (!line.trim()) continue;
    for (const [p, t] of Object.entries(JSON.parse(line) as Record<string, Tally>)) {
      const s = sum.get(p) ?? { checked: 0, violations: 0, deliberate: 0, answers: 0 };
      s.checked += t.checked;
      s.violations += t.violations;
      s.deliberate += t.deliberate;
      s.answers += t.answers;
      sum.set(p, s);
    }
  }
  return [...sum]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([p, s]) =>
        `${p}: ${s.checked} requests and ${s.answers} answers checked, ${s.violations} violations (${s.deliberate} deliberate, asserted by their tests)`,
    );
}
