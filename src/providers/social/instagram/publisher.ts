/**
 * Instagram publishing (Instagram API with Instagram Login): container -> status -> media_publish ->
 * permalink, one resumable step at a time (networks.md 2.2;
 * https://developers.facebook.com/docs/instagram-platform/content-publishing/).
 *
 * Saved network ids (`delivery.networkIds`), each saved the moment it exists:
 * - `children`: carousel item container ids, in slide order (`is_carousel_item=true`, no caption);
 * - `container`: the container to publish (single image, REELS video, or the CAROUSEL parent), with
 *   `containerCreatedAt` (ISO time);
 * - `publishRequestedAt`: set just before `media_publish` is sent (a crash after it means: ask first);
 * - `mediaId`: the published media id.
 *
 * Never a blind retry: a step that finds `publishRequestedAt` without `mediaId` reads the container's
 * `status_code` first (PUBLISHED -> find the media among the recent media by caption; FINISHED -> publish).
 * A lost `media_publish` answer throws `NetworkTransientError(afterCreate)`; `reconcile` decides.
 */
import type { SocialHttp } from "../http.ts";
import {
  type DeliveryJob,
  type JobMedia,
  type NetworkPublisher,
  NetworkRejectedError,
  type PublishingQuota,
  trackedIds,
  type StepResult,
} from "../network.ts";
import { findRecentItem, GRAPH_VERSION, graphRequest } from "../facebook/graph.ts";
import { INSTAGRAM_GRAPH } from "./table.ts";

/** Seconds between status polls of an image container (Meta suggests up to once a minute for 5 minutes). */
export const IMAGE_POLL_SECONDS = 3;
/** Seconds between status polls of a video (REELS) container, which takes longer to process. */
export const VIDEO_POLL_SECONDS = 10;

type ContainerStatus = "IN_PROGRESS" | "FINISHED" | "ERROR" | "EXPIRED" | "PUBLISHED";

interface Ids {
  children?: string[];
  container?: string;
  containerCreatedAt?: string;
  publishRequestedAt?: string;
  mediaId?: string;
}

const api = (path: string) => `${INSTAGRAM_GRAPH}/${GRAPH_VERSION}/${path}`;

/** The Instagram publisher; requests go through `http` (../http.ts), `now` is the service clock. */
export function instagramPublisher(http: SocialHttp, now: () => Date): NetworkPublisher {
  return {
    async step(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.mediaId) return permalink(http, job, ids.mediaId);
      if (!ids.container) {
        await createContainers(http, job, ids, saveIds, now);
        return { state: "processing", pollAfterSeconds: pollSeconds(job) };
      }
      // An image container is FINISHED by its first poll as a rule, so its publishing limit is read beside
      // its status (two reads at once rather than one after the other); a video's once it is FINISHED.
      const limitRead = pollSeconds(job) === IMAGE_POLL_SECONDS ? publishingLimit(http, job) : undefined;
      limitRead?.catch(() => undefined);
      const status = await containerStatus(http, job, ids.container);
      if (status.code === "IN_PROGRESS") return { state: "processing", pollAfterSeconds: pollSeconds(job) };
      if (status.code === "ERROR")
        return { state: "failed", reason: `Instagram could not process the media: ${status.text}` };
      if (status.code === "EXPIRED")
        return { state: "failed", reason: "The Instagram container expired before it was published (24 h)." };
      if (status.code === "PUBLISHED") return finishPublished(http, job, ids, saveIds);
      // FINISHED: publish now (a saved publishRequestedAt with FINISHED means the earlier request never landed).
      const quota = await (limitRead ?? publishingLimit(http, job));
      if (quota && quota.used >= quota.limit) {
        return {
          state: "failed",
          reason: `The Instagram account reached its publishing limit (${quota.used} of ${quota.limit} posts in 24 hours).`,
        };
      }
      await saveIds({ publishRequestedAt: now().toISOString() });
      const published = await graphRequest<{ id: string }>(http, {
        method: "POST",
        url: api(`${job.account.networkAccountId}/media_publish`),
        params: { creation_id: ids.container },
        accessToken: job.account.tokens.accessToken,
        create: true,
        signal: job.signal,
      });
      await saveIds({ mediaId: String(published.body.id) });
      return permalink(http, job, String(published.body.id));
    },

    async reconcile(job, save) {
      const { ids, saveIds } = trackedIds<Ids>(job, save);
      if (ids.mediaId) return permalink(http, job, ids.mediaId);
      if (!ids.container) return { state: "not_created" };
      const status = await containerStatus(http, job, ids.container);
      if (status.code === "PUBLISHED") return finishPublished(http, job, ids, saveIds);
      if (status.code === "FINISHED") return { state: "not_created" };
      if (status.code === "IN_PROGRESS") return { state: "processing", pollAfterSeconds: pollSeconds(job) };
      return { state: "failed", reason: `The Instagram container is ${status.code}: ${status.text}` };
    },

    publishingLimit: (job) => publishingLimit(http, job),
  };
}

function pollSeconds(job: DeliveryJob): number {
  return job.post.media.some((m) => m.kind === "video") ? VIDEO_POLL_SECONDS : IMAGE_POLL_SECONDS;
}

/** Creates the child containers (saving each) and the container to publish. */
async function createContainers(
  http: SocialHttp,
  job: DeliveryJob,
  ids: Ids,
  save: (patch: Ids) => Promise<void>,
  now: () => Date,
): Promise<void> {
  const media = job.post.media;
  if (media.length === 0) throw new NetworkRejectedError("Instagram posts need at least one image or video.");
  const create = async (params: Record<string, string | undefined>) => {
    const r = await graphRequest<{ id: string }>(http, {
      method: "POST",
      url: api(`${job.account.networkAccountId}/media`),
      params,
      accessToken: job.account.tokens.accessToken,
      create: true,
      signal: job.signal,
    });
    return String(r.body.id);
  };
  if (media.length === 1) {
    const only = media[0]!;
    const id = await create({ ...mediaParams(only, false), caption: job.post.caption || undefined });
    await save({ container: id, containerCreatedAt: now().toISOString() });
    return;
  }
  const children = [...(ids.children ?? [])];
  for (let i = children.length; i < media.length; i++) {
    children.push(await create({ ...mediaParams(media[i]!, true), is_carousel_item: "true" }));
    await save({ children: [...children] });
  }
  const parent = await create({
    media_type: "CAROUSEL",
    children: children.join(","),
    caption: job.post.caption || undefined,
  });
  await save({ container: parent, containerCreatedAt: now().toISOString() });
}

function mediaParams(m: JobMedia, carouselItem: boolean): Record<string, string> {
  // `alt_text` of an image container (IG User Media reference; at most 1,000 characters, rules.ts `altText`).
  if (m.kind === "image") return { image_url: m.publicUrl(), ...(m.altText ? { alt_text: m.altText } : {}) };
  return carouselItem
    ? { media_type: "VIDEO", video_url: m.publicUrl() }
    : { media_type: "REELS", video_url: m.publicUrl(), share_to_feed: "true" };
}

async function containerStatus(
  http: SocialHttp,
  job: DeliveryJob,
  id: string,
): Promise<{ code: ContainerStatus; text: string }> {
  const r = await graphRequest<{ status_code?: ContainerStatus; status?: string }>(http, {
    method: "GET",
    url: api(id),
    params: { fields: "status_code,status" },
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  return { code: r.body.status_code ?? "IN_PROGRESS", text: r.body.status ?? "" };
}

/**
 * The container says PUBLISHED but the media id was never saved (the answer to media_publish was lost):
 * find the media among the account's recent media by caption and kind, created after the container.
 */
async function finishPublished(
  http: SocialHttp,
  job: DeliveryJob,
  ids: Ids,
  save: (patch: Ids) => Promise<void>,
): Promise<StepResult> {
  const kind =
    job.post.media.length > 1 ? "CAROUSEL_ALBUM" : job.post.media[0]?.kind === "video" ? "VIDEO" : "IMAGE";
  const found = await findRecentItem<{
    id: string;
    caption?: string;
    media_type?: string;
    timestamp?: string;
  }>(
    http,
    job,
    {
      url: api(`${job.account.networkAccountId}/media`),
      fields: "id,caption,media_type,timestamp,permalink",
    },
    { text: (m) => m.caption, created: (m) => m.timestamp, also: (m) => m.media_type === kind },
    ids.containerCreatedAt ? Date.parse(ids.containerCreatedAt) : 0,
  );
  if (!found) {
    // Published per the container, not yet listed: look again shortly instead of publishing again.
    return { state: "processing", pollAfterSeconds: pollSeconds(job) };
  }
  await save({ mediaId: String(found.id) });
  return permalink(http, job, String(found.id));
}

async function permalink(http: SocialHttp, job: DeliveryJob, mediaId: string): Promise<StepResult> {
  const r = await graphRequest<{ permalink?: string }>(http, {
    method: "GET",
    url: api(mediaId),
    params: { fields: "permalink" },
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  if (!r.body.permalink) return { state: "processing", pollAfterSeconds: IMAGE_POLL_SECONDS };
  return { state: "published", postUrl: r.body.permalink, networkPostId: mediaId };
}

/** `GET /{ig-user-id}/content_publishing_limit`: posts used in the rolling window and the live quota. */
async function publishingLimit(http: SocialHttp, job: DeliveryJob): Promise<PublishingQuota | undefined> {
  const r = await graphRequest<{
    data?: Array<{ quota_usage?: number; config?: { quota_total?: number; quota_duration?: number } }>;
  }>(http, {
    method: "GET",
    url: api(`${job.account.networkAccountId}/content_publishing_limit`),
    params: { fields: "quota_usage,config" },
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  const row = r.body.data?.[0];
  if (!row || row.config?.quota_total === undefined) return undefined;
  return {
    used: row.quota_usage ?? 0,
    limit: row.config.quota_total,
    windowSeconds: row.config.quota_duration ?? 86_400,
  };
}
