/**
 * The structured result envelope (service spec 2.4, DESIGN.md section 3) and its MCP CallToolResult form:
 * `content` carries the envelope as JSON text (and, when the envelope names a follow-up, a second text block
 * saying it in plain words), `structuredContent` the envelope, `isError` marks failures.
 */
import { absoluteUrls, type ErrorCode, RETRY_BY_CODE, type Retry, type ToolError } from "../errors.ts";
import type { Envelope, ToolOutput } from "../tool-contract.ts";

/** The envelope of a handler that returned (`succeeded`). `credits_charged` only when the handler set it. */
export function successEnvelope(requestId: string, output: ToolOutput): Envelope {
  const envelope: Envelope = {
    request_id: requestId,
    status: "succeeded",
    data: output.data as Record<string, unknown>,
  };
  if (output.credits_charged !== undefined) envelope.credits_charged = output.credits_charged;
  if (output.next) envelope.next = output.next;
  return envelope;
}

/** The optional parts of an error: its wait, details and recovery (`retry`, `action_url`). */
export interface ErrorExtra {
  retryAfter?: number | undefined;
  details?: unknown;
  /** Defaults to the code's (errors.ts RETRY_BY_CODE), `after_user_action` when `actionUrl` is set. */
  retry?: Retry | undefined;
  /** The absolute URL of the page where a person acts; put into `details.action_url`. */
  actionUrl?: string | undefined;
}

/**
 * The envelope of a failed call: `status: failed` and
 * `error {code, message, request_id, retry, retry_after?, details?}`. `message` must be safe to show (never a
 * secret, prompt, caption or internal reason).
 */
export function errorEnvelope(
  requestId: string,
  code: ErrorCode,
  message: string,
  extra: ErrorExtra = {},
): Envelope {
  const retry = extra.retry ?? (extra.actionUrl ? "after_user_action" : RETRY_BY_CODE[code]);
  const error: NonNullable<Envelope["error"]> = { code, message, request_id: requestId, retry };
  if (extra.retryAfter !== undefined) error.retry_after = extra.retryAfter;
  let details = extra.details;
  if (extra.actionUrl !== undefined)
    details = {
      ...(typeof details === "object" && details !== null && !Array.isArray(details)
        ? details
        : details === undefined
          ? {}
          : { issues: details }),
      action_url: extra.actionUrl,
    };
  if (details !== undefined) error.details = details;
  return { request_id: requestId, status: "failed", error };
}

/**
 * The envelope of a ToolError for a service at `baseUrl`: the error's code, its message with absolute page
 * URLs, its details, its `retry` (ToolError.retry) and, when it names the page where a person acts, that page
 * as the absolute `details.action_url`.
 */
export function toolErrorEnvelope(requestId: string, err: ToolError, baseUrl: string): Envelope {
  const actionPath = err.recovery.actionPath;
  return errorEnvelope(requestId, err.code, absoluteUrls(err.message, baseUrl), {
    retryAfter: err.retryAfter,
    details: err.details,
    retry: err.retry,
    actionUrl: actionPath ? `${baseUrl}${actionPath}` : undefined,
  });
}

/** True for envelopes that must be sent with `isError: true`. */
export function isErrorEnvelope(envelope: Envelope): boolean {
  return envelope.error !== undefined;
}

/**
 * The follow-up of an envelope in plain words, for the second text block (DESIGN.md section 3: hosts that
 * never show the server instructions still show this): what to show the user, which tool to call with which
 * arguments, and when. undefined when the envelope names no follow-up.
 */
export function nextStepText(envelope: Envelope): string | undefined {
  const next = envelope.next;
  if (!next) return undefined;
  const parts: string[] = [];
  if (envelope.status === "approval_required" && envelope.approval_url) {
    const expires = (envelope.data as { expires_at?: unknown } | undefined)?.expires_at;
    parts.push(
      `Show this link to the user, who approves or declines in their browser (never approve for them): ${envelope.approval_url}${typeof expires === "string" ? ` (it expires at ${expires})` : ""}. Nothing runs until they approve.`,
    );
  }
  parts.push(
    `Next: call ${next.tool} with ${JSON.stringify(next.arguments)}${next.after_seconds > 0 ? ` in ${next.after_seconds} s` : " now"}.`,
  );
  if (next.note) parts.push(next.note);
  return parts.join(" ");
}

/** The MCP CallToolResult fields for an envelope (without the revision's `resultType`/`_meta`). */
export function callToolResult(envelope: Envelope): {
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Envelope;
  isError?: true;
} {
  const structured = wireEnvelope(envelope);
  const content: Array<{ type: "text"; text: string }> = [{ type: "text", text: JSON.stringify(structured) }];
  const words = nextStepText(envelope);
  if (words) content.push({ type: "text", text: words });
  const result: {
    content: Array<{ type: "text"; text: string }>;
    structuredContent: Envelope;
    isError?: true;
  } = { content, structuredContent: structured };
  if (isErrorEnvelope(envelope)) result.isError = true;
  return result;
}

/**
 * The envelope as sent and validated: `next` as `{tool, arguments, after_seconds}` (its plain-words note goes
 * to the second text block only).
 */
export function wireEnvelope(envelope: Envelope): Envelope {
  const { next, ...rest } = envelope;
  // A `note` key, even one set to undefined, is not part of the listed `next` (additionalProperties: false).
  if (!next || !("note" in next)) return envelope;
  return { ...rest, next: { tool: next.tool, arguments: next.arguments, after_seconds: next.after_seconds } };
}
