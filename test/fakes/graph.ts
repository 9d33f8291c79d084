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

/**
 * Meta's usage metering (test only), per https://developers.facebook.com/docs/graph-api/overview/rate-limiting:
 * every answer carries `X-App-Usage` (the app's calls in the current hour as a percentage of `appLimit`:
 * `{call_count, total_cputime, total_time}`) and, for a call made with a business object's token (a Page, an
 * Instagram professional account), `X-Business-Use-Case-Usage` (`{id: [{type, call_count, total_cputime,
 * total_time, estimated_time_to_regain_access}]}`, that object's calls in 24 h as a percentage of
 * `bucLimit`, the time in minutes, 0 until it is throttled). The call that reaches 100 is answered 200 with
 * the value at 100; past it Meta refuses: code 4 "Application request limit reached" for the app, the
 * object's BUC code (80001 Pages, 80002 Instagram) for the object, with the headers. The defaults follow
 * the networks' documented formulas for one user: the app 200 calls an hour per user, a Page 4800 calls a
 * day per engaged user (docs/spec/networks.md 2.2, 2.3); tests lower them.
 */
export class GraphUsage {
  /** The app's calls per hour; default 200 per user of the app (set a number to fix it). */
  appLimit: number | undefined;
  /** Each business object's calls per 24 hours. */
  bucLimit = 4800;
  /** The fake's clock, milliseconds. */
  now: () => number = () => Date.now();
  private app = { start: 0, used: 0 };
  private readonly objects = new Map<string, { start: number; used: number }>();
  private readonly bucType: "pages" | "instagram";
  private readonly bucCode: number;

  private readonly users: () => number;

  /** `users` counts the app's users (the default app limit is 200 calls an hour for each). */
  constructor(bucType: "pages" | "instagram", users: () => number) {
    this.users = users;
    this.bucType = bucType;
    this.bucCode = bucType === "pages" ? 80001 : 80002;
  }

  /** Starts every window afresh (no call counted yet). */
  reset(): void {
    this.app = { start: 0, used: 0 };
    this.objects.clear();
  }

  /**
   * Meters one call of `objectId` (undefined: a user token's call, app usage only); runs `next` unless a
   * limit is already used, and adds the usage headers to whichever answer.
   */
  async meter(objectId: string | undefined, next: () => Promise<FakeResponse>): Promise<FakeResponse> {
    const now = this.now();
    if (now >= this.app.start + 3_600_000) this.app = { start: now, used: 0 };
    let obj: { start: number; used: number } | undefined;
    if (objectId !== undefined) {
      obj = this.objects.get(objectId);
      if (!obj || now >= obj.start + 86_400_000) {
        obj = { start: now, used: 0 };
        this.objects.set(objectId, obj);
      }
    }
    const appLimit = this.appLimit ?? 200 * Math.max(1, this.users());
    const appOver = this.app.used >= appLimit;
    const objOver = obj !== undefined && obj.used >= this.bucLimit;
    let answer: FakeResponse;
    if (appOver) answer = graphError(4, "(#4) Application request limit reached");
    else if (objOver)
      answer = graphError(
        this.bucCode,
        `(#${this.bucCode}) There have been too many calls to this ${this.bucType === "pages" ? "Page" : "Instagram"} account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.`,
      );
    else {
      this.app.used += 1;
      if (obj) obj.used += 1;
      answer = await next();
    }
    const pct = (used: number, limit: number) => Math.min(100, Math.floor((used * 100) / limit));
    const headers: Record<string, string> = {
      "x-app-usage": JSON.stringify({
        call_count: pct(this.app.used, appLimit),
        total_cputime: 0,
        total_time: 0,
      }),
    };
    if (obj && objectId !== undefined) {
      const at = pct(obj.used, this.bucLimit);
      headers["x-business-use-case-usage"] = JSON.stringify({
        [objectId]: [
          {
            type: this.bucType,
            call_count: at,
            total_cputime: 0,
            total_time: 0,
            estimated_time_to_regain_access:
              at >= 100 ? Math.ceil((obj.start + 86_400_000 - now) / 60_000) : 0,
          },
        ],
      });
    }
    return { ...answer, headers: { ...answer.headers, ...headers } };
  }
}
