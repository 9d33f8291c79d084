/**
 * LinkedIn publishing through the Posts API (networks.md 2.5;
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api,
 * .../shares/multiimage-post-api):
 * - text: `POST /rest/posts {author, commentary, visibility:"PUBLIC", distribution:{feedDistribution:
 *   "MAIN_FEED", targetEntities:[], thirdPartyDistributionChannels:[]}, lifecycleState:"PUBLISHED",
 *   isReshareDisabledByAuthor:false}`; the commentary is the caption in "little text" (./little-text.ts);
 * - one image: `content:{media:{id: image URN, altText?}}` (./images.ts); 2 to 20 images: by default one PDF document
 *   with a page per image, `content:{media:{id: document URN, title}}` once the document is AVAILABLE
 *   (./documents.ts), or with the account's `linkedin_carousel: images` `content:{multiImage:{images:[{id, altText?}]}}`
 *   (the setting as approved: the delivery's `approved_format` replaces the account's current value in
 *   `job.account.settings`, src/domain/social/delivery-step.ts);
 *   a video: `content:{media:{id: video URN, title?}}` once the video
 *   is AVAILABLE (./videos.ts);
 * - the answer is 201 with the post URN (`urn:li:share:...` or `urn:li:ugcPost:...`) in the `x-restli-id`
 *   header; the post URL is `https://www.linkedin.com/feed/update/{urn}`.
 *
 * LinkedIn has no idempotency key. Before the create call the step saves an armed marker (`armedAt`,
 * `commentarySha256`); a definite refusal (4xx, 429) disarms it. A step or `reconcile` that finds the marker
 * without `postUrn` first lists the author's recent posts (`GET /rest/posts?author=&q=author&count=10
 * &sortBy=LAST_MODIFIED`) and adopts the one with the same commentary and media created since the marker;
 * only when none is there is the post created again. When LinkedIn does not let the app list the author's
 * posts (members: the restricted `r_member_social`), the delivery fails asking to check the profile: never a
 * blind second post.
 *
 * Saved network ids: `images` (./images.ts), `document` (./documents.ts), `videoUpload` (./videos.ts), `armedAt`, `commentarySha256`,
 * `postUrn`.
 */
import { createHash } from "node:crypto";
import {
  type DeliveryJob,
  NetworkAuthError,
  type NetworkPublisher,
  NetworkRateLimitError,
  NetworkRejectedError,
  NetworkTransientError,
  type StepResult,
  trackedIds,
} from "../network.ts";
import { encodeUrn, LinkedInAccessDeniedError, type LinkedInClient, linkedinRequest } from "./api.ts";
import { advanceDocument, type SavedDocument, sendsAsDocument } from "./documents.ts";
import { type SavedImage, uploadImages } from "./images.ts";
import { escapeLittleText } from "./little-text.ts";
import { authorUrn } from "./oauth.ts";
import { advanceVideo, type SavedVideo } from "./videos.ts";

/** Seconds between status polls of a processing video. */
export const VIDEO_POLL_SECONDS = 10;
/** Seconds between status polls of a processing document. */
export const DOCUMENT_POLL_SECONDS = 5;
/** How many of the author's recent posts are searched for a post whose create answer was lost. */
export const RECENT_POSTS = 10;
/** Clock skew allowed between the armed marker and LinkedIn's `createdAt`, milliseconds. */
const CLOCK_SKEW_MS = 60_000;

const CANNOT_LOOK =
  "LinkedIn did not confirm whether the post was created, and it does not let this app list the author's posts; check the LinkedIn profile before publishing again.";

interface Ids {
  images?: SavedImage[];
  document?: SavedDocument;
  videoUpload?: SavedVideo;
  /** Set just before `POST /rest/posts` (ISO time); null once LinkedIn refused the create outright. */
  armedAt?: string | null;
  /** SHA-256 (hex) of the commentary sent with the armed create. */
  commentarySha256?: string | null;
  postUrn?: string;
}

interface PostElement {
  id?: string;
  author?: string;
  commentary?: string;
  createdAt?: number;
  publishedAt?: number;
  lifecycleState?: string;
  content?: { media?: { id?: string }; multiImage?: { images?: Array<{ id?: string }> } };
}

/** The public URL of a post URN (the URN as is). */
export function linkedinPermalink(urn: string): string {
  return `https://www.linkedin.com/feed/update/${urn}`;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

const published = (urn: string): StepResult => ({
  state: "published",
  postUrl: linkedinPermalink(urn),
  networkPostId: urn,
});

/** The LinkedIn publisher; calls go through `client` (./api.ts). */
export function linkedinPublisher(client: LinkedInClient): NetworkPublisher {
  return {
    async step(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.postUrn) return published(ids.postUrn);
      const author = authorUrn(job.account);
      if (ids.armedAt) {
        // An earlier create was sent and its answer not recorded: look before creating again.
        const look = await lookForPost(client, job, author, ids);
        if (look.kind === "cannot_look") return { state: "failed", reason: CANNOT_LOOK };
        if (look.kind === "found") {
          await saveIds({ postUrn: look.urn });
          return published(look.urn);
        }
      }
      const media = job.post.media;
      let content: Record<string, unknown> | undefined;
      if (media[0]?.kind === "video") {
        const video = await advanceVideo(client, job, author, ids.videoUpload, (v) =>
          saveIds({ videoUpload: v }),
        );
        if (video.kind === "uploading") return { state: "uploading", pollAfterSeconds: 0 };
        if (video.kind === "processing") return { state: "processing", pollAfterSeconds: VIDEO_POLL_SECONDS };
        if (video.kind === "failed") return { state: "failed", reason: video.reason };
        const title = job.post.title?.trim();
        content = { media: { id: video.video, ...(title ? { title } : {}) } };
      } else if (sendsAsDocument(media, job.account.settings)) {
        const doc = await advanceDocument(client, job, author, ids.document, (d) => saveIds({ document: d }));
        if (doc.kind === "processing")
          return { state: "processing", pollAfterSeconds: DOCUMENT_POLL_SECONDS };
        if (doc.kind === "failed") return { state: "failed", reason: doc.reason };
        content = { media: { id: doc.document, title: doc.title } };
      } else if (media.length > 0) {
        const images = await uploadImages(client, job, author, ids.images, (images) => saveIds({ images }));
        // Alt text in `altText` of the media and of each multiImage image (Posts API; rules.ts `altText`).
        const withAlt = (id: string | undefined, i: number) => {
          const altText = media[i]?.altText;
          return altText ? { id, altText } : { id };
        };
        content =
          images.length === 1
            ? { media: withAlt(images[0], 0) }
            : { multiImage: { images: images.map(withAlt) } };
      }
      const commentary = escapeLittleText(job.post.caption);
      await saveIds({ armedAt: client.now().toISOString(), commentarySha256: sha256(commentary) });
      let urn: string | null;
      try {
        const r = await linkedinRequest(client, {
          method: "POST",
          path: "/rest/posts",
          json: {
            author,
            commentary,
            visibility: "PUBLIC",
            distribution: {
              feedDistribution: "MAIN_FEED",
              targetEntities: [],
              thirdPartyDistributionChannels: [],
            },
            lifecycleState: "PUBLISHED",
            isReshareDisabledByAuthor: false,
            ...(content ? { content } : {}),
          },
          accessToken: job.account.tokens.accessToken,
          create: true,
          signal: job.signal,
        });
        urn = r.headers.get("x-restli-id");
      } catch (err) {
        if (
          err instanceof NetworkRateLimitError ||
          err instanceof NetworkRejectedError ||
          err instanceof NetworkAuthError
        ) {
          // LinkedIn answered and created nothing: the next attempt need not look first.
          await saveIds({ armedAt: null, commentarySha256: null });
        }
        throw err;
      }
      if (!urn) throw new NetworkTransientError("LinkedIn answered the post without its x-restli-id", true);
      await saveIds({ postUrn: urn });
      return published(urn);
    },

    async reconcile(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.postUrn) return published(ids.postUrn);
      // Without an armed marker no create was sent: uploads resume from their saved ids.
      if (!ids.armedAt) return { state: "not_created" };
      const look = await lookForPost(client, job, authorUrn(job.account), ids);
      if (look.kind === "cannot_look") return { state: "failed", reason: CANNOT_LOOK };
      if (look.kind === "not_found") return { state: "not_created" };
      await saveIds({ postUrn: look.urn });
      return published(look.urn);
    },
  };
}

/** The media URNs the armed post carries, in order (empty for a text post). */
function expectedMedia(ids: Ids, job: DeliveryJob): string[] {
  if (job.post.media[0]?.kind === "video") return ids.videoUpload?.video ? [ids.videoUpload.video] : [];
  if (sendsAsDocument(job.post.media, job.account.settings))
    return ids.document?.document ? [ids.document.document] : [];
  return (ids.images ?? []).slice(0, job.post.media.length).map((i) => i.image);
}

/**
 * Looks for the armed post among the author's recent posts: same commentary (as sent, or as LinkedIn shows
 * it unescaped), same media, created since the marker (minus a minute of clock skew).
 */
async function lookForPost(
  client: LinkedInClient,
  job: DeliveryJob,
  author: string,
  ids: Ids,
): Promise<{ kind: "found"; urn: string } | { kind: "not_found" } | { kind: "cannot_look" }> {
  let elements: PostElement[];
  try {
    const r = await linkedinRequest<{ elements?: PostElement[] }>(client, {
      method: "GET",
      path: `/rest/posts?author=${encodeUrn(author)}&q=author&count=${RECENT_POSTS}&sortBy=LAST_MODIFIED`,
      accessToken: job.account.tokens.accessToken,
      restliMethod: "FINDER",
      signal: job.signal,
    });
    elements = r.body.elements ?? [];
  } catch (err) {
    if (err instanceof LinkedInAccessDeniedError) return { kind: "cannot_look" };
    throw err;
  }
  const since = Date.parse(ids.armedAt ?? "") - CLOCK_SKEW_MS;
  const media = expectedMedia(ids, job);
  const found = elements.find((p) => {
    if (!p.id || (p.author && p.author !== author)) return false;
    const text = p.commentary ?? "";
    if (sha256(text) !== ids.commentarySha256 && sha256(escapeLittleText(text)) !== ids.commentarySha256)
      return false;
    const created = p.createdAt ?? p.publishedAt;
    if (created !== undefined && created < since) return false;
    const got =
      p.content?.multiImage?.images?.map((i) => i.id ?? "") ??
      (p.content?.media?.id ? [p.content.media.id] : []);
    return got.length === media.length && got.every((id, i) => id === media[i]);
  });
  return found?.id ? { kind: "found", urn: found.id } : { kind: "not_found" };
}
