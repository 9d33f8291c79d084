/**
 * The full structured envelope (service spec 2.4, docs/tools-yaml.md "The envelope output schema") that
 * wraps a tool's `output`: it is the tool's MCP `outputSchema` and the catalog's `output_schema`.
 */
import { errorCodes } from "../src/errors.ts";
import type { JsonSchema } from "./spec.ts";
import { STATES } from "./states.ts";

const UUID = { type: "string", format: "uuid" } as const;

/** The `data` schema of a tool without `output`. */
export const EMPTY_DATA: JsonSchema = { type: "object", additionalProperties: false, properties: {} };

/**
 * The `data` schema of a review tool without `output`: none in `approval_required`; in `denied` (a repeated
 * request the user declined or that expired, service spec 3.1) the decision and its time.
 */
export const REVIEW_DATA: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    decision: {
      type: "string",
      enum: ["declined", "expired"],
      description: "In denied: the user declined the request, or it expired unapproved after 30 minutes.",
    },
    decided_at: { type: "string", format: "date-time", description: "In denied: when it was decided." },
  },
};

/** The envelope's `error` object: `{code, message, request_id, retry_after?, details?}` (service spec 7). */
export function errorSchema(): JsonSchema {
  return {
    type: "object",
    additionalProperties: false,
    required: ["code", "message", "request_id"],
    properties: {
      code: { type: "string", enum: [...errorCodes] },
      message: { type: "string" },
      request_id: { ...UUID },
      retry_after: { type: "integer", minimum: 0, description: "Seconds to wait before retrying." },
      details: { description: "Machine-readable details, e.g. validation issues with JSON pointers." },
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
      error: errorSchema(),
    },
  };
}
