/**
 * What a network adapter does with a post it already published (docs/network-adapters.md "First comments"
 * and "Removal"): post one comment under it (the post's first comment) and take it down. Both are optional
 * parts of a `NetworkAdapter` (./network.ts): a network whose API has no comment endpoint for this (Pinterest,
 * TikTok) has no `comments`; one whose publishing API cannot delete a post (Instagram's content publishing
 * API, TikTok's Content Posting API) has no `remover`, and its copy stays live.
 *
 * Errors are the publisher's (./network.ts): `NetworkAuthError`, `NetworkRateLimitError`,
 * `NetworkRejectedError` (the network refused: the post is gone, the comment is refused),
 * `NetworkTransientError` (`afterCreate` once the comment's create was sent). Messages are safe to show.
 *
 * The account type `A` is the adapter's account (./network.ts `AdapterAccount`, tokens opened); it is a
 * parameter so that this module does not import ./network.ts, which names these parts.
 */

/** The published post a comment goes under or a removal takes down, as the delivery recorded it. */
export interface PublishedPost {
  /** The id `step` returned with `published` (IG media id, FB post id, LinkedIn URN, Pin id, video id, post id). */
  networkPostId: string;
  /** The post's URL on the network, when recorded. */
  postUrl: string | null;
  /** The delivery's saved network ids (container, video id, ...). */
  networkIds: Record<string, unknown>;
  /** Post type: text | image | carousel | video. */
  type: string;
}

/** A comment the network holds: its id and, when the network gives one, its URL. */
export interface PostedComment {
  id: string;
  url: string | null;
}

/** One first comment to post: the account, the post and the approved text (never logged). */
export interface CommentJob<A> {
  account: A;
  post: PublishedPost;
  text: string;
  /** When the create was first sent, if an earlier attempt sent it (the comment may exist since). */
  sentAt: Date | null;
  signal?: AbortSignal | undefined;
}

/** Posting the first comment under a published post. */
export interface NetworkComments<A> {
  /**
   * Scopes a grant needs to comment (YouTube `youtube.force-ssl`): an account whose known grant lacks one
   * is not asked; its first comment fails with a reason naming the scope and /settings/social.
   */
  readonly scopes: readonly string[];
  /**
   * Creates the comment. @returns its id and URL. @throws as the publisher; a lost answer throws
   * `NetworkTransientError` with `afterCreate: true`.
   */
  create(job: CommentJob<A>): Promise<PostedComment>;
  /**
   * After a create whose answer was lost: reads the post's comments (or the account's replies) for the one
   * with this text by this account, made at or after `job.sentAt`. @returns it, or undefined when the
   * network has none (the create did not take effect).
   */
  find(job: CommentJob<A>): Promise<PostedComment | undefined>;
}

/** Taking a published post down from the network. */
export interface NetworkRemover<A> {
  /**
   * Scopes a grant needs to delete (YouTube `youtube.force-ssl`; none: the publishing grant does): an
   * account whose known grant lacks one is not asked; its removal fails with a reason naming the scope.
   */
  readonly scopes?: readonly string[];
  /**
   * Deletes the post (X `DELETE /2/tweets/{id}`, Facebook `DELETE /{post-id}`, LinkedIn `DELETE
   * /rest/posts/{urn}`, Pinterest `DELETE /v5/pins/{id}`, YouTube `videos.delete`). A post the network no
   * longer has (already deleted by hand) counts as removed.
   * @throws as the publisher (e.g. `NetworkRejectedError` when the network refuses: not the account's post).
   */
  remove(account: A, post: PublishedPost, signal?: AbortSignal): Promise<void>;
}
