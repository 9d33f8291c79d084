/**
 * Meta Graph API conventions shared by the Instagram and Facebook fakes (test only): the error envelope
 * `{error:{message,type,code,error_subcode,fbtrace_id}}` and the token errors (code 190).
 * @see https://developers.facebook.com/docs/graph-api/guides/error-handling
 */
import { randomBytes } from "node:crypto";
import type { FakeResponse } from "./server.ts";

/** A Graph API error answer (HTTP 400 unless given). */
export function graphError(
  code: number,
  message: string,
  options: {
    subcode?: number;
    type?: string;
    status?: number;
    userTitle?: string;
    userMessage?: string;
  } = {},
): FakeResponse {
  return {
    status: options.status ?? 400,
    body: {
      error: {
        message,
        type: options.type ?? "OAuthException",
        code,
        ...(options.subcode !== undefined ? { error_subcode: options.subcode } : {}),
        ...(options.userMessage !== undefined
          ? { is_transient: false, error_user_title: options.userTitle, error_user_msg: options.userMessage }
          : {}),
        fbtrace_id: randomBytes(8).toString("base64url"),
      },
    },
  };
}

/** Code 190, subcode 460: the session was invalidated (password change, revoked access). */
export const revokedToken = (): FakeResponse =>
  graphError(
    190,
    "Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.",
    { subcode: 460 },
  );

/** Code 190 without subcode: a token this server never issued. */
export const invalidToken = (): FakeResponse =>
  graphError(190, "Invalid OAuth access token - Cannot parse access token");

/** Code 190, subcode 463: the token expired. */
export const expiredToken = (): FakeResponse =>
  graphError(190, "Error validating access token: Session has expired.", { subcode: 463 });

/** A new opaque token string in Meta's shape (prefix + random). */
export function newToken(prefix: string): string {
  return `${prefix}${randomBytes(24).toString("base64url")}`;
}

/**
 * Picks the requested `fields` (comma list) out of `record`; `id` always included. A field expansion such as
 * `reactions.limit(0).summary(total_count)` picks the field by its name (`reactions`).
 */
export function pickFields(record: Record<string, unknown>, fields: string | null): Record<string, unknown> {
  if (!fields) return { id: record.id };
  const out: Record<string, unknown> = {};
  for (const f of fields.split(",").map((s) => s.trim().split(/[.{]/)[0]!)) {
    if (f && record[f] !== undefined) out[f] = record[f];
  }
  out.id = record.id;
  return out;
}

/**
 * A Graph insights answer for `objectId`: one entry per requested metric that `values` holds (lifetime
 * period), none for the others (Meta answers an empty data set, not 0, for data that does not exist).
 * @see https://developers.facebook.com/docs/graph-api/reference/v23.0/insights
 */
export function insightsAnswer(
  objectId: string,
  metrics: string[],
  values: Record<string, number | undefined>,
): FakeResponse {
  const data = metrics
    .filter((m) => values[m] !== undefined)
    .map((name) => ({
      name,
      period: "lifetime",
      values: [{ value: values[name] }],
      title: name,
      description: `Lifetime ${name}`,
      id: `${objectId}/insights/${name}/lifetime`,
    }));
  return { body: { data, paging: { previous: "", next: "" } } };
}
