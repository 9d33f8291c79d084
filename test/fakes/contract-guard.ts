/**
 * Runs the contract check (contract.ts) for a fake server and keeps what it found (test only): each request
 * is counted and checked; a violation is answered in the provider's error shape (contract-errors.ts), kept,
 * and fails the test during which it happened (an `afterEach` hook of the file that started the fake; a
 * violation still kept when the fake closes fails that file). A test that provokes one on purpose takes it
 * with `takeViolations()` and asserts on it. Answers are checked against the operation's response schema.
 */
import { after, afterEach } from "node:test";
import type { Contract, ContractRequest, Operation, Violation } from "./contract.ts";
import { type ErrorAnswer, violationAnswer } from "./contract-errors.ts";
import { tallyOf } from "./contract-tally.ts";

export class ContractGuard {
  private readonly kept: Violation[] = [];
  /** A guard of a test that breaks the contract on purpose throughout: its violations count as deliberate. */
  private readonly deliberate: boolean;

  constructor(options: { deliberate?: boolean } = {}) {
    this.deliberate = options.deliberate ?? false;
  }

  private count(v: Violation): void {
    const t = tallyOf(v.provider);
    if (this.deliberate) t.deliberate += 1;
    else t.violations += 1;
  }

  /** Hooks the guard to the tests of the file (or test) that starts the fake. */
  watch(): void {
    try {
      afterEach(() => this.failIfAny());
      after(() => this.failIfAny());
    } catch {
      // Started outside a test context (a benchmark): violations are still answered and counted.
    }
  }

  /** Throws the kept violations (and forgets them): what fails the test during which they happened. */
  failIfAny(): void {
    const v = this.kept.splice(0);
    if (v.length === 0) return;
    throw new Error(
      `provider contract violated (test/contracts, docs/testing.md "Provider contracts"):\n${v
        .map(
          (x) =>
            `  ${x.provider} ${x.where} ${x.request}${x.operation ? ` [${x.operation}]` : ""}: ${x.message}`,
        )
        .join("\n")}`,
    );
  }

  /** The violations kept since the last call (a test asserting a refusal takes them: they no longer fail). */
  takeViolations(): Violation[] {
    const v = this.kept.splice(0);
    if (!this.deliberate)
      for (const x of v) {
        const t = tallyOf(x.provider);
        t.violations -= 1;
        t.deliberate += 1;
      }
    return v;
  }

  /** Checks a request: the operation it matched, or the error answer to send instead of acting on it. */
  async request(
    contract: Contract,
    req: ContractRequest,
    nodeOf?: (id: string) => string | undefined,
  ): Promise<{ operation?: Operation; valid?: Operation[]; refusal?: ErrorAnswer }> {
    const t = tallyOf(contract.provider);
    const r = await contract.check(req, nodeOf);
    if (!r.operation && !r.violation) return {};
    t.checked += 1;
    if (!r.violation) return { operation: r.operation!, valid: r.valid ?? [r.operation!] };
    const v: Violation = {
      provider: contract.provider,
      request: `${req.method} ${req.path}`,
      where: "request",
      ...(r.operation ? { operation: r.operation.id } : {}),
      ...r.violation,
    };
    this.kept.push(v);
    this.count(v);
    return { ...(r.operation ? { operation: r.operation } : {}), refusal: violationAnswer(v) };
  }

  /** Checks an answer of `op` before it is sent; a mismatch is kept like a request's violation. */
  response(contract: Contract, ops: Operation[], req: ContractRequest, status: number, body: unknown): void {
    const t = tallyOf(contract.provider);
    t.answers += 1;
    const problem = contract.checkResponse(ops, status, body);
    if (!problem) return;
    const v: Violation = {
      provider: contract.provider,
      request: `${req.method} ${req.path}`,
      operation: ops[0]!.id,
      where: "response",
      kind: "body",
      message: problem,
    };
    this.kept.push(v);
    this.count(v);
  }
}
