/**
 * The structured result envelope (service spec 2.4, DESIGN.md section 3) and its MCP CallToolResult form:
 * `content` carries the envelope as JSON text, `structuredContent` the envelope, `isError` marks failures.
 */
import type { ErrorCode } from "../errors.ts";
import type { Envelope, ToolOutput } from "../tool-contract.ts";

/** The envelope of a handler that returned (`succeeded`). `credits_charged` only when the handler set it. */
export function successEnvelope(requestId: string, output: ToolOutput): Envelope {
  const envelope: Envelope = {
    request_id: requestId,
    status: "succeeded",
    data: output.data as Record<string, unknown>,
  };
  if (output.credits_charged !== undefined) envelope.credits_charged = output.credits_charged;
  return envelope;
}

/**
 * The envelope of a failed call: `status: failed` and `error {code, message, request_id, retry_after?, details?}`.
 * `message` must be safe to show (never a secret, prompt, caption or internal reason).
 */
export function errorEnvelope(
  requestId: string,
  code: ErrorCode,
  message: string,
  extra: { retryAfter?: number | undefined; details?: unknown } = {},
): Envelope {
  const error: NonNullable<Envelope["error"]> = { code, message, request_id: requestId };
  if (extra.retryAfter !== undefined) error.retry_after = extra.retryAfter;
  if (extra.details !== undefined) error.details = extra.details;
  return { request_id: requestId, status: "failed", error };
}

/** True for envelopes that must be sent with `isError: true`. */
export function isErrorEnvelope(envelope: Envelope): boolean {
  return envelope.error !== undefined;
}

/** The MCP CallToolResult fields for an envelope (without the revision's `resultType`/`_meta`). */
export function callToolResult(envelope: Envelope): {
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Envelope;
  isError?: true;
} {
  const result: {
    content: Array<{ type: "text"; text: string }>;
    structuredContent: Envelope;
    isError?: true;
  } = {
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    structuredContent: envelope,
  };
  if (isErrorEnvelope(envelope)) result.isError = true;
  return result;
}
