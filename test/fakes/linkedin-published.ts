/**
 * What the LinkedIn fake (./linkedin.ts) does with a published post: its comments and its deletion.
 *
 * Comments API (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api):
 * - `POST /rest/socialActions/{post urn}/comments {actor, object, message: {text}}`: the actor must be the
 *   member (`w_member_social`) or a page they administer (`w_organization_social`), else 403 ACCESS_DENIED;
 *   `object` must be the post of the path and `message.text` a non-empty text of at most 1,250 characters
 *   (422); a post LinkedIn does not have (never made, or deleted) is refused with 404. The answer is 201 with
 *   the comment in the body (`$URN`/`commentUrn` `urn:li:comment:({post urn},{id})`, `id`, `actor`,
 *   `object`, `message`, `created`) and its id in `x-restli-id`. The fake names the comment by the post's
 *   URN where LinkedIn names the post's activity (`urn:li:activity:`); nothing reads that part. Comments
 *   are counted (`linkedin.comments`).
 * - `GET /rest/socialActions/{post urn}/comments?start=&count=`: the post's comments, oldest first, in
 *   `{paging, elements}`; reading them needs the read scope of the post's author (`r_member_social`,
 *   restricted, for a member's post; `r_organization_social` for a page's), else 403 ACCESS_DENIED.
 *
 * Posts API "Delete Posts" (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/
 * posts-api): `DELETE /rest/posts/{post urn}` -> 204 for a post the token may write as its author (else 403
 * ACCESS_DENIED: another account's post); deletes are idempotent (a post already deleted answers 204); a
 * URN LinkedIn never had answers 404. Deletes are counted (`linkedin.deletes`).
 *
 * Error bodies are LinkedIn's `{status, serviceErrorCode?, code?, message}`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling).
 */
import type { FakeRequest, FakeResponse } from "./server.ts";

/** A comment as the fake holds it. */
export interface LinkedInCommentRecord {
  urn: string;
  id: string;
  postUrn: string;
  actor: string;
  /** The member who wrote it (the actor, or the page's administrator). */
  by: string;
  text: string;
  createdAt: number;
}

/** LinkedIn's longest comment, characters (Comments API; src/providers/social/published-rules.ts). */
export const LI_COMMENT_MAX = 1250;

type Member = { member: { urn: string }; scopes: string[] };

/** What the routes need from the fake. */
export interface PublishedHost {
  readonly posts: Map<string, { urn: string; author: string }>;
  /** Post URNs deleted through the API or by hand (`deletePost`). */
  readonly deletedPosts: Set<string>;
  /** Comments per post URN, oldest first. */
  readonly comments: Map<string, LinkedInCommentRecord[]>;
  readonly server: {
    count(name: string): void;
    route(method: string, host: string, path: string, handler: (req: FakeRequest) => unknown): void;
  };
  rest(req: FakeRequest, handler: (m: Member) => FakeResponse | Promise<FakeResponse>): unknown;
  mayAct(m: Member, author: string, mode: "w" | "r"): boolean;
  error(status: number, message: string, code?: string, serviceErrorCode?: number): FakeResponse;
}

let next = 7_100_000_000_000_000_000n;

/** Mounts the comment and delete routes on the fake's API host. */
export function mountPublished(fake: PublishedHost, apiHost: string): void {
  const s = fake.server;
  s.route("POST", apiHost, "/rest/socialActions/:urn/comments", (req) =>
    fake.rest(req, (m) => createComment(fake, req, m)),
  );
  s.route("GET", apiHost, "/rest/socialActions/:urn/comments", (req) =>
    fake.rest(req, (m) => listComments(fake, req, m)),
  );
  s.route("DELETE", apiHost, "/rest/posts/:urn", (req) => fake.rest(req, (m) => deletePost(fake, req, m)));
}

const denied = (fake: PublishedHost, what: string) =>
  fake.error(403, `Not enough permissions to access: ${what}`, "ACCESS_DENIED", 100);

const live = (fake: PublishedHost, urn: string) =>
  fake.deletedPosts.has(urn) ? undefined : fake.posts.get(urn);

function commentJson(c: LinkedInCommentRecord) {
  return {
    $URN: c.urn,
    commentUrn: c.urn,
    id: c.id,
    actor: c.actor,
    object: c.postUrn,
    message: { text: c.text, attributes: [] },
    created: { actor: c.by, time: c.createdAt },
    lastModified: { actor: c.by, time: c.createdAt },
  };
}

function createComment(fake: PublishedHost, req: FakeRequest, m: Member): FakeResponse {
  const urn = req.params.urn!;
  const b = req.json() as { actor?: unknown; object?: unknown; message?: { text?: unknown } } | undefined;
  if (!b) return fake.error(400, "Request body is not JSON", "ILLEGAL_ARGUMENT");
  const actor = typeof b.actor === "string" ? b.actor : "";
  if (!/^urn:li:(person|organization):/.test(actor))
    return fake.error(
      422,
      "/actor :: field is required and must be a person or organization URN",
      "FIELD_MISSING",
    );
  if (!fake.mayAct(m, actor, "w")) return denied(fake, "socialActions.comments.CREATE");
  if (b.object !== urn)
    return fake.error(400, "/object :: must be the entity of the path", "ILLEGAL_ARGUMENT");
  const text = b.message?.text;
  if (typeof text !== "string" || text === "")
    return fake.error(422, "/message/text :: field is required but not found", "FIELD_MISSING");
  if ([...text].length > LI_COMMENT_MAX)
    return fake.error(422, `/message/text :: text is longer than ${LI_COMMENT_MAX}`, "INVALID_VALUE");
  if (!live(fake, urn)) return fake.error(404, `Parent entity ${urn} does not exist`, "NOT_FOUND");
  next += 1n;
  const id = String(next);
  const comment: LinkedInCommentRecord = {
    urn: `urn:li:comment:(${urn},${id})`,
    id,
    postUrn: urn,
    actor,
    by: m.member.urn,
    text,
    createdAt: Date.now(),
  };
  fake.comments.set(urn, [...(fake.comments.get(urn) ?? []), comment]);
  fake.server.count("linkedin.comments");
  return { status: 201, headers: { "x-restli-id": id }, body: commentJson(comment) };
}

function listComments(fake: PublishedHost, req: FakeRequest, m: Member): FakeResponse {
  const urn = req.params.urn!;
  const post = live(fake, urn);
  if (!post) return fake.error(404, `Entity ${urn} does not exist`, "NOT_FOUND");
  if (!fake.mayAct(m, post.author, "r")) return denied(fake, "socialActions.comments.GET_ALL");
  const start = Number(req.query.get("start") ?? 0);
  const count = Math.min(100, Number(req.query.get("count") ?? 10));
  const all = fake.comments.get(urn) ?? [];
  return {
    body: {
      paging: { start, count, total: all.length, links: [] },
      elements: all.slice(start, start + count).map(commentJson),
    },
  };
}

function deletePost(fake: PublishedHost, req: FakeRequest, m: Member): FakeResponse {
  const urn = req.params.urn!;
  if (fake.deletedPosts.has(urn)) return { status: 204 };
  const post = fake.posts.get(urn);
  if (!post) return fake.error(404, `Post ${urn} does not exist`, "NOT_FOUND");
  if (!fake.mayAct(m, post.author, "w")) return denied(fake, "partnerApiPostsExternal.DELETE");
  fake.posts.delete(urn);
  fake.deletedPosts.add(urn);
  fake.server.count("linkedin.deletes");
  return { status: 204 };
}
