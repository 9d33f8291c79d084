/**
 * Facebook Page publishing through the Graph API with the Page token (networks.md 2.3;
 * https://developers.facebook.com/docs/pages-api/posts, .../graph-api/reference/page/photos,
 * .../video-api/guides/publishing):
 * - text: `POST /{page-id}/feed` with `message`;
 * - one photo: `POST /{page-id}/photos` with `url` and `caption` (answers `{id, post_id}`);
 * - several photos: each `POST /{page-id}/photos` with `published=false`, then `POST /{page-id}/feed` with
 *   `message` and `attached_media[i]={"media_fbid":"<photo id>"}`;
 * - video: `POST /{page-id}/videos` with `file_url` and `description`, then `GET /{video-id}?fields=status`
 *   until `video_status` is `ready`;
 * - the post URL is the network's `permalink_url` (made absolute when Facebook answers a path).
 *
 * Saved network ids: `photos` (unpublished photo ids in order), `postRequestedAt` (set just before the call
 * that creates the post), `postId`, `videoId`. Before creating a post again, the step and `reconcile` look for
 * it among the Page's recent posts (by message, created after `postRequestedAt`): never a blind retry.
 */
import type { SocialHttp } from "../http.ts";
import {
  type DeliveryJob,
  type JobMedia,
  type NetworkPublisher,
  type SaveIds,
  type StepResult,
  trackedIds,
} from "../network.ts";
import { findRecentItem, GRAPH_VERSION, graphRequest } from "./graph.ts";
import { FACEBOOK_GRAPH } from "./table.ts";

/** Seconds between status polls of a processing video. */
export const VIDEO_POLL_SECONDS = 10;

interface Ids {
  photos?: string[];
  postRequestedAt?: string;
  postId?: string;
  videoId?: string;
}

const api = (path: string) => `${FACEBOOK_GRAPH}/${GRAPH_VERSION}/${path}`;

/** Makes a Graph `permalink_url` absolute (videos answer a path such as `/{page}/videos/{id}/`). */
export function absolutePermalink(url: string): string {
  return url.startsWith("/") ? `https://www.facebook.com${url}` : url;
}

/** The Facebook Page publisher; requests go through `http` (../http.ts), `now` is the service clock. */
export function facebookPublisher(http: SocialHttp, now: () => Date): NetworkPublisher {
  return {
    async step(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.postId) return permalink(http, job, ids.postId);
      if (ids.videoId) return videoStatus(http, job, ids.videoId);
      if (ids.postRequestedAt) {
        // An earlier attempt sent the create and did not record the answer: look before creating again.
        const found = await findRecentPost(http, job, ids.postRequestedAt);
        if (found) {
          await saveIds({ postId: found.id });
          return {
            state: "published",
            postUrl: absolutePermalink(found.permalink_url),
            networkPostId: found.id,
          };
        }
      }
      const page = job.account.networkAccountId;
      const token = job.account.tokens.accessToken;
      const caption = job.post.caption || undefined;
      const media = job.post.media;
      const call = (path: string, params: Record<string, string | undefined>, create: boolean) =>
        graphRequest<{ id: string; post_id?: string }>(http, {
          method: "POST",
          url: api(path),
          params,
          accessToken: token,
          create,
          signal: job.signal,
        });

      if (media.length === 0) {
        await saveIds({ postRequestedAt: now().toISOString() });
        const r = await call(`${page}/feed`, { message: caption }, true);
        await saveIds({ postId: String(r.body.id) });
        return permalink(http, job, String(r.body.id));
      }
      if (media[0]!.kind === "video") {
        await saveIds({ postRequestedAt: now().toISOString() });
        const r = await call(
          `${page}/videos`,
          { file_url: media[0]!.publicUrl(), description: caption, title: job.post.title ?? undefined },
          true,
        );
        await saveIds({ videoId: String(r.body.id) });
        return { state: "processing", pollAfterSeconds: VIDEO_POLL_SECONDS };
      }
      if (media.length === 1) {
        await saveIds({ postRequestedAt: now().toISOString() });
        const r = await call(
          `${page}/photos`,
          { url: media[0]!.publicUrl(), caption, ...altOf(media[0]!) },
          true,
        );
        const postId = String(r.body.post_id ?? r.body.id);
        await saveIds({ postId });
        return permalink(http, job, postId);
      }
      // Unpublished photos are not posts: creating one again after a lost answer leaves an unused upload only.
      const photos = [...(ids.photos ?? [])];
      for (let i = photos.length; i < media.length; i++) {
        const r = await call(
          `${page}/photos`,
          { url: media[i]!.publicUrl(), published: "false", ...altOf(media[i]!) },
          false,
        );
        photos.push(String(r.body.id));
        await saveIds({ photos: [...photos] });
      }
      const attached: Record<string, string> = {};
      photos.forEach((id, i) => {
        attached[`attached_media[${i}]`] = JSON.stringify({ media_fbid: id });
      });
      await saveIds({ postRequestedAt: now().toISOString() });
      const r = await call(`${page}/feed`, { message: caption, ...attached }, true);
      await saveIds({ postId: String(r.body.id) });
      return permalink(http, job, String(r.body.id));
    },

    async reconcile(job, save: SaveIds) {
      const ids = job.delivery.networkIds as Ids;
      if (ids.postId) return permalink(http, job, ids.postId);
      if (ids.videoId) return videoStatus(http, job, ids.videoId);
      if (!ids.postRequestedAt) return { state: "not_created" };
      const found = await findRecentPost(http, job, ids.postRequestedAt);
      if (!found) return { state: "not_created" };
      await save({ postId: found.id });
      return { state: "published", postUrl: absolutePermalink(found.permalink_url), networkPostId: found.id };
    },
  };
}

async function permalink(http: SocialHttp, job: DeliveryJob, postId: string): Promise<StepResult> {
  const r = await graphRequest<{ permalink_url?: string }>(http, {
    method: "GET",
    url: api(postId),
    params: { fields: "permalink_url" },
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  if (!r.body.permalink_url) return { state: "processing", pollAfterSeconds: 5 };
  return { state: "published", postUrl: absolutePermalink(r.body.permalink_url), networkPostId: postId };
}

async function videoStatus(http: SocialHttp, job: DeliveryJob, videoId: string): Promise<StepResult> {
  const r = await graphRequest<{ permalink_url?: string; status?: { video_status?: string } }>(http, {
    method: "GET",
    url: api(videoId),
    params: { fields: "status,permalink_url" },
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  const status = r.body.status?.video_status;
  if (status === "error") return { state: "failed", reason: "Facebook could not process the video." };
  if (status !== "ready" || !r.body.permalink_url)
    return { state: "processing", pollAfterSeconds: VIDEO_POLL_SECONDS };
  return { state: "published", postUrl: absolutePermalink(r.body.permalink_url), networkPostId: videoId };
}

/** A Page post with this delivery's message created since `requestedAt` (../facebook/graph.ts `findRecentItem`). */
async function findRecentPost(
  http: SocialHttp,
  job: DeliveryJob,
  requestedAt: string,
): Promise<{ id: string; permalink_url: string } | undefined> {
  const found = await findRecentItem<{
    id: string;
    message?: string;
    created_time?: string;
    permalink_url?: string;
  }>(
    http,
    job,
    { url: api(`${job.account.networkAccountId}/feed`), fields: "id,message,created_time,permalink_url" },
    { text: (p) => p.message, created: (p) => p.created_time, also: (p) => Boolean(p.permalink_url) },
    Date.parse(requestedAt),
  );
  return found ? { id: found.id, permalink_url: found.permalink_url! } : undefined;
}

/** A photo's `alt_text_custom` (Photo reference, https://developers.facebook.com/docs/graph-api/reference/photo/). */
function altOf(m: JobMedia): { alt_text_custom?: string } {
  return m.altText ? { alt_text_custom: m.altText } : {};
}
