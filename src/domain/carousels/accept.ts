/**
 * What the accept parts of carousel generation, regeneration and retry share (./carousels.ts,
 * ./regenerate.ts): the accepted run as a tool reports it, what the caller knows about the run it starts,
 * and the validation error naming a bad argument (service spec 7).
 */
import type { Sealer } from "../../crypto/seal.ts";
import { ToolError } from "../../errors.ts";

/** An accepted run: the carousel post, the queued run, the credits charged for it. */
export interface Accepted {
  post_id: string;
  run_id: string;
  credits_charged: number;
}

/** The caller's side of a run it accepts: its operation, the time, the sealer, the operation deadline. */
export interface RunMeta {
  operationId: string | undefined;
  now: Date;
  sealer: Sealer;
  /** The operation deadline (seconds): a run `running` for longer is considered stopped. */
  deadlineSeconds: number;
}

/** A validation error naming the argument at `path` (a JSON pointer) and the rule's parameters. */
export function invalid(path: string, message: string, params: Record<string, unknown> = {}): ToolError {
  return ToolError.validation(message, { path, keyword: "enum", params });
}
