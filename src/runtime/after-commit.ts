/**
 * Work that must run only after a transaction commits (for example sending a queue job for an operation the
 * transaction created; DESIGN.md section 3). A hook receives the envelope the transaction produced and
 * returns the envelope to answer with (a failed dispatch changes `status` to `dispatch_failed`).
 * `runIdempotent` (src/runtime/idempotency.ts) runs the hooks of its transaction once it committed.
 */
import type { Knex } from "../db/knex.ts";
import type { Envelope } from "../tool-contract.ts";

export type CommitHook = (envelope: Envelope) => Promise<Envelope>;

const hooks = new WeakMap<Knex.Transaction, CommitHook[]>();

/** Registers `hook` to run after `trx` commits (never when it rolls back). */
export function afterCommit(trx: Knex.Transaction, hook: CommitHook): void {
  const list = hooks.get(trx) ?? [];
  list.push(hook);
  hooks.set(trx, list);
}

/** Takes the hooks registered on `trx` (they run at most once). */
export function takeCommitHooks(trx: Knex.Transaction): CommitHook[] {
  const list = hooks.get(trx) ?? [];
  hooks.delete(trx);
  return list;
}

/** Runs `hooks` in order, threading the envelope through them. */
export async function runCommitHooks(list: CommitHook[], envelope: Envelope): Promise<Envelope> {
  let out = envelope;
  for (const hook of list) out = await hook(out);
  return out;
}
