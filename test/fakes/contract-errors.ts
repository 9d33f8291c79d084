/**
 * How each provider answers a request its API refuses, for the contract check (contract.ts): the error body
 * the provider's reference documents, so that an adapter sees what it would see from the real API.
 */
import { randomBytes } from "node:crypto";
import type { Violation } from "./contract.ts";

export interface ErrorAnswer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/**
 * The answer to `v`:
 * - OpenAI `{error:{message,type,param,code}}`, 400 `unknown_parameter` / `invalid_value` /
 *   `missing_required_parameter`, 404 "Invalid URL" (https://platform.openai.com/docs/guides/error-codes);
 * - Pinterest `{code, message}` (https://developers.pinterest.com/docs/api/v5/, "Errors");
 * - X `{errors:[{parameters,message}], title, detail, type}` of problem type invalid-request
 *   (https://docs.x.com/x-api/fundamentals/response-codes-and-errors);
 * - Google `{error:{code,message,errors:[{message,domain,reason}],status}}`, `unknownPart` for a part the
 *   resource does not have (https://developers.google.com/youtube/v3/docs/errors);
 * - Graph `{error:{message,type:"OAuthException",code:100,fbtrace_id}}`
 *   (https://developers.facebook.com/docs/graph-api/guides/error-handling);
 * - LinkedIn `{status, serviceErrorCode, code, message}`
 *   (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling);
 * - TikTok `{data:{}, error:{code:"invalid_params", message, log_id}}`
 *   (https://developers.tiktok.com/doc/tiktok-api-v2-error-handling).
 */
export function violationAnswer(v: Violation): ErrorAnswer {
  const unknownOp = v.kind === "unknown_operation";
  switch (v.provider) {
    case "openai": {
      const code =
        v.kind === "unknown_parameter"
          ? "unknown_parameter"
          : v.kind === "missing_parameter"
            ? "missing_required_parameter"
            : unknownOp
              ? null
              : "invalid_value";
      const message = unknownOp
        ? `Invalid URL (${v.request})`
        : v.kind === "unknown_parameter"
          ? `Unknown parameter: '${v.param}'.`
          : v.kind === "missing_parameter"
            ? `Missing required parameter: '${v.param}'.`
            : v.allowed
              ? `Invalid value: '${String(v.value)}'. Supported values are: ${quoted(v.allowed)}.`
              : `Invalid value for '${v.param ?? "body"}': ${v.message}`;
      return {
        status: unknownOp ? 404 : 400,
        body: { error: { message, type: "invalid_request_error", param: v.param ?? null, code } },
      };
    }
    case "pinterest":
      return unknownOp
        ? { status: 404, body: { code: 404, message: "Not Found" } }
        : { status: 400, body: { code: 1, message: `Invalid request: ${v.message}` } };
    case "x":
      return unknownOp
        ? { status: 404, body: { errors: [{ message: "Sorry, that page does not exist", code: 34 }] } }
        : {
            status: 400,
            body: {
              errors: [
                {
                  ...(v.param ? { parameters: { [v.param]: [String(v.value ?? "")] } } : {}),
                  message: v.message,
                },
              ],
              title: "Invalid Request",
              detail: "One or more parameters to your request was invalid.",
              type: "https://api.twitter.com/2/problems/invalid-request",
            },
          };
    case "youtube": {
      if (unknownOp) return google(404, "notFound", "Not Found", "NOT_FOUND");
      const reason =
        v.kind === "unknown_part"
          ? "unknownPart"
          : v.kind === "missing_parameter"
            ? "required"
            : v.kind === "unknown_parameter"
              ? "unknownParameter"
              : "invalidParameter";
      return google(400, reason, v.kind === "unknown_part" ? String(v.value) : v.message, "INVALID_ARGUMENT");
    }
    case "facebook":
    case "instagram":
      return {
        status: 400,
        body: {
          error: {
            message: unknownOp
              ? `Unsupported ${v.request.split(" ")[0]!.toLowerCase()} request. Object does not exist, cannot be loaded due to missing permissions, or does not support this operation.`
              : v.message.startsWith("(#100)")
                ? v.message
                : `(#100) ${v.message}`,
            type: unknownOp ? "GraphMethodException" : "OAuthException",
            code: 100,
            ...(unknownOp ? { error_subcode: 33 } : {}),
            fbtrace_id: randomBytes(8).toString("base64url"),
          },
        },
      };
    case "linkedin":
      return unknownOp
        ? { status: 404, body: { status: 404, code: "NOT_FOUND", message: `No virtual resource found` } }
        : {
            status: 400,
            body: { status: 400, serviceErrorCode: 100, code: "ILLEGAL_ARGUMENT", message: v.message },
          };
    case "tiktok":
      return {
        status: unknownOp ? 404 : 400,
        body: {
          data: {},
          error: {
            code: unknownOp ? "not_found" : "invalid_params",
            message: v.message,
            log_id: randomBytes(12).toString("hex"),
          },
        },
      };
  }
}

function google(code: number, reason: string, message: string, status: string): ErrorAnswer {
  return {
    status: code,
    body: { error: { code, message, errors: [{ message, domain: "global", reason }], status } },
  };
}

/** `'a', 'b', and 'c'`: how OpenAI lists supported values. */
function quoted(values: unknown[]): string {
  const q = values.filter((x) => x !== null).map((x) => `'${String(x)}'`);
  return q.length <= 2 ? q.join(" and ") : `${q.slice(0, -1).join(", ")}, and ${q[q.length - 1]}`;
}
