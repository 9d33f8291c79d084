/**
 * Operations written by hand from a provider's reference page, for what no machine-readable description
 * covers: LinkedIn's and TikTok's APIs (neither publishes one), the OAuth token endpoints of X and Google,
 * Instagram's and Facebook's token exchanges and the upload hosts. One entry per operation, each naming its
 * page in `source`; contract.ts checks them like the described ones (test/fakes/contract.ts).
 */

/** A query or header parameter of a hand-written operation (JSON Schema of its value, a string by default). */
export interface HandParameter {
  required?: boolean;
  schema?: object;
}

export interface HandOperation {
  id: string;
  method: string;
  /** The path on the host, `{name}` for a path parameter. */
  path: string;
  /** The reference page the rules come from. */
  source: string;
  /** Query parameters; any other is refused. */
  query?: Record<string, HandParameter>;
  /** Header parameters (required unless `required: false`). */
  headers?: Record<string, HandParameter>;
  /** Media type -> body schema; none: the operation takes no body. */
  body?: Record<string, object>;
  /** Whether a body must be sent (default true when `body` is given). */
  bodyRequired?: boolean;
  /** Status -> answer schema (null: not checked). */
  responses?: Record<string, object | null>;
}

/** A form body of string fields: `required` ones and the `optional` ones, nothing else. */
export function formBody(required: string[], optional: string[] = []): object {
  const properties = Object.fromEntries([...required, ...optional].map((k) => [k, { type: "string" }]));
  return { type: "object", required, properties, additionalProperties: false };
}
