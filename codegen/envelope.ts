/**
 * The full structured envelope (service spec 2.4, docs/tools-yaml.md "The envelope output schema") that
 * wraps a tool's `output`: it is the tool's MCP `outputSchema` and the catalog's `output_schema`.
 */
import { errorCodes, retryValues } from "../src/errors.ts";
import type { JsonSchema } from "./spec.ts";
import { STATES } from "./states.ts";

const UUID = { type: "string", format: "uuid" } as const;

/** The `data` schema of a tool without `output`. */
export const EMPTY_DATA: JsonSchema = { type: "object", additionalProperties: false, properties: {} };

/**
 * The `data` schema of a review tool: in `approval_required` what the request asks, in one sentence the
 * agent can tell the user, and when its link expires; once decided (a repeated request, service spec 3.1)
 * the decision and its time.
 */
export const REVIEW_DATA: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    summary: {
      type: "string",
      maxLength: 2000,
      description: "What the request asks, in one sentence to tell the user.",
    },
    expires_at: {
      type: "string",
      format: "date-time",
      description: "When approval_url expires (30 minutes after the request); then the request is denied.",
    },
    decision: {
      type: "string",
      enum: ["approved", "declined", "expired"],
      description: "Once decided: approved, declined by the user, or expired unapproved after 30 minutes.",
    },
    decided_at: { type: "string", format: "date-time", description: "Once decided: when." },
  },
};

/** The envelope's `next`: the agent's follow-up call (DESIGN.md section 3). */
export function nextSchema(): JsonSchema {
  return {
    type: "object",
    additionalProperties: false,
    required: ["tool", "arguments", "after_seconds"],
    description: "The follow-up call: call `tool` with `arguments` after `after_seconds` seconds.",
    properties: {
      tool: { type: "string", pattern: "^[a-z][a-z0-9_]{0,63}$", maxLength: 64 },
      arguments: { type: "object", description: "Arguments for the call, as given." },
      after_seconds: { type: "integer", minimum: 0, maximum: 600 },
    },
  };
}

/** The envelope's `error` object: `{code, message, request_id, retry, retry_after?, details?}` (service spec 7). */
export function errorSchema(): JsonSchema {
  return {
    type: "object",
    additionalProperties: false,
    required: ["code", "message", "request_id", "retry"],
    properties: {
      code: { type: "string", enum: [...errorCodes] },
      message: { type: "string" },
      request_id: { ...UUID },
      retry: {
        type: "string",
        enum: [...retryValues],
        description:
          "same_key: repeat the identical call; new_key: fix the cause, then a new key; after_user_action: a person acts first at details.action_url; never: do not retry.",
      },
      retry_after: { type: "integer", minimum: 0, description: "Seconds to wait before retrying." },
      details: {
        type: ["object", "array"],
        description: "Machine-readable details, e.g. validation issues with JSON pointers, or action_url.",
      },
    },
  };
}

/**
 * Wraps `data` (a tool's `output`, or EMPTY_DATA) into the envelope schema.
 * @returns a fresh JSON Schema object (never shares nodes with `data`).
 */
export function envelopeSchema(data: JsonSchema): JsonSchema {
  return {
    type: "object",
    additionalProperties: false,
    required: ["request_id", "status"],
    properties: {
      request_id: { ...UUID, description: "Server-generated id of this call." },
      status: { type: "string", enum: STATES.map((s) => s.name) },
      data: structuredClone(data),
      operation_id: {
        ...UUID,
        description: "Present when an operation exists; poll it with get_job_status.",
      },
      approval_url: {
        type: "string",
        format: "uri",
        description: "Present in approval_required: show it to the user, who approves in the browser.",
      },
      credits_charged: { type: "integer", minimum: 0, description: "Credits this call charged." },
      next: nextSchema(),
      error: errorSchema(),
    },
  };
}
