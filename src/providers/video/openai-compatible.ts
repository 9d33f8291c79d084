/**
 * The `openai-compatible` video provider: the AI UGC hook clip comes from a video generation model behind a
 * gateway that still speaks the shape of OpenAI's Videos API (OpenAI shut the API and its Sora 2 models
 * down on 2026-09-24; docs/providers.md "Provider facts"):
 *   `POST {baseUrl}/videos` with JSON `{model, prompt, seconds, size}` -> `{id, status}`,
 *   `GET {baseUrl}/videos/{id}` polled until `status` is `completed` (or `failed`),
 *   `GET {baseUrl}/videos/{id}/content` -> the MP4 bytes.
 * Everything else (the 2x2 grid, the single fade, the CTA segment, the hook text overlay) is composed by
 * the local ffmpeg compositor (./local.ts). The key is sent as a Bearer token and never logged; provider
 * bodies never reach errors (VideoRenderError reasons name the status and the provider's `param` and
 * `code` only). One generation (create, polling, download) is bounded by `timeoutSeconds`. The create call
 * is retried only after a 429 (nothing was started), waiting its `Retry-After`; never after a 5xx or a lost
 * answer (a retry could start and bill a second generation). A failed or refused clip fails the render:
 * there is no local stand-in for a clip the operator configured a model for.
 */
import { createWriteStream } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { measuredFetch } from "../../observability/metrics.ts";
import type { components } from "../contracts/openai.ts";
import { readRefusal, refusalText, retryAfterSeconds, sleep } from "../openai-http.ts";
import { type HookClipSource, type LocalVideoOptions, localVideoProvider } from "./local.ts";
import { type VideoProvider, VideoRenderError } from "./types.ts";

export interface OpenAiCompatibleVideoOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  model: string;
  /** Limit of one whole generation (create, polling, download), seconds. */
  timeoutSeconds: number;
  /** Delay between status polls, milliseconds (default 5000). */
  pollIntervalMs?: number;
  /** Largest clip accepted, bytes (default 100 MiB). */
  maxClipBytes?: number;
}

/** The Videos API's shapes, from OpenAI's description (test/contracts/openai.json via scripts/contracts.ts). */
type CreateVideo = components["schemas"]["CreateVideoJsonBody"];
type Video = components["schemas"]["VideoResource"];
type VideoSeconds = components["schemas"]["VideoSeconds"];

/** Portrait size asked of the model (Videos API `size`); the compositor scales it to 1080x1920. */
const CLIP_SIZE: components["schemas"]["VideoSize"] = "720x1280";
/** Durations the Videos API takes (`seconds`, a string). */
const CLIP_SECONDS = [4, 8, 12] as const;
/** Create attempts when the provider answers 429, and the longest Retry-After waited (seconds). */
const MAX_ATTEMPTS = 3;
const MAX_RETRY_WAIT_SECONDS = 30;

/** The shortest duration the API takes that covers `seconds`, as the API's string ("4", "8", "12"). */
export function clipSeconds(seconds: number): VideoSeconds {
  return String(CLIP_SECONDS.find((s) => s >= seconds) ?? CLIP_SECONDS.at(-1)) as VideoSeconds;
}

/**
 * A hook clip source over the Videos API. `generate` writes `hook.mp4` into the render's temp dir.
 * @throws VideoRenderError for a refused request, a failed or timed-out generation or an oversized clip.
 */
export function openAiCompatibleHookClips(o: OpenAiCompatibleVideoOptions): HookClipSource {
  const base = o.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
  const maxBytes = o.maxClipBytes ?? 100 * 1024 * 1024;
  return {
    async generate({ prompt, seconds, dir }, outer) {
      const deadline = AbortSignal.timeout(o.timeoutSeconds * 1000);
      const signal = outer ? AbortSignal.any([outer, deadline]) : deadline;
      const call = async (url: string, init: RequestInit = {}) => {
        try {
          // Counted as the video provider's create, status or download call (src/observability/metrics.ts).
          const operation = url.endsWith("/content")
            ? "videos.content"
            : init.method === "POST"
              ? "videos.create"
              : "videos.retrieve";
          return await measuredFetch("video", operation, url, {
            ...init,
            headers: { ...headers, ...init.headers },
            signal,
          });
        } catch {
          throw new VideoRenderError(
            deadline.aborted
              ? "the video model did not finish in time"
              : "the video model could not be reached",
          );
        }
      };
      const request: CreateVideo = {
        model: o.model,
        prompt: `A vertical UGC-style social video hook, handheld, natural light. On-screen idea: ${prompt}`,
        seconds: clipSeconds(seconds),
        size: CLIP_SIZE,
      };
      const body = JSON.stringify(request);
      let created: Response;
      // A 429 started nothing: it is waited out (Retry-After, bounded); any other refusal fails at once.
      for (let n = 1; ; n++) {
        created = await call(`${base}/videos`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        if (created.status !== 429 || n >= MAX_ATTEMPTS) break;
        const after = retryAfterSeconds(created.headers.get("retry-after")) ?? 2 ** n;
        await created.body?.cancel().catch(() => {});
        if (after > MAX_RETRY_WAIT_SECONDS) break;
        try {
          await sleep(after * 1000, signal);
        } catch {
          throw new VideoRenderError("the video model did not finish in time");
        }
      }
      if (!created.ok) {
        const refusal = await readRefusal(created);
        throw new VideoRenderError(
          refusal.code === "model_not_found" || refusal.status === 404
            ? `the video provider does not serve the configured model (${refusalText(refusal)}); check AI_VIDEO_MODEL`
            : refusal.status === 429
              ? `the video model is rate limiting (${refusalText(refusal)}); run the automation again later`
              : `the video model refused the request (${refusalText(refusal)})`,
        );
      }
      // Answers are read as the description's shape, every field still checked at run time.
      const job = (await created.json().catch(() => null)) as Partial<Video> | null;
      if (!job || typeof job.id !== "string" || !/^[A-Za-z0-9_.-]{1,200}$/.test(job.id))
        throw new VideoRenderError("the video model returned no video id");
      const id = encodeURIComponent(job.id);
      let status: unknown = job.status;
      while (status !== "completed") {
        if (status === "failed" || status === "cancelled")
          throw new VideoRenderError("the video model failed to generate the hook clip");
        try {
          await sleep(o.pollIntervalMs ?? 5000, signal);
        } catch {
          throw new VideoRenderError("the video model did not finish in time");
        }
        const polled = await call(`${base}/videos/${id}`);
        if (!polled.ok) throw new VideoRenderError(`the video status request failed (HTTP ${polled.status})`);
        status = ((await polled.json().catch(() => null)) as Partial<Video> | null)?.status;
      }
      const content = await call(`${base}/videos/${id}/content`);
      if (!content.ok || !content.body)
        throw new VideoRenderError(`the video download failed (HTTP ${content.status})`);
      const declared = Number(content.headers.get("content-length") ?? "0");
      if (declared > maxBytes) throw new VideoRenderError("the generated hook clip is too large");
      const file = path.join(dir, "hook.mp4");
      let seen = 0;
      try {
        await pipeline(
          Readable.fromWeb(content.body as WebReadableStream),
          async function* (chunks: AsyncIterable<Buffer | string>) {
            for await (const c of chunks) {
              seen += c.length;
              if (seen > maxBytes) throw new VideoRenderError("the generated hook clip is too large");
              yield c;
            }
          },
          createWriteStream(file, { mode: 0o600 }),
        );
      } catch (err) {
        if (err instanceof VideoRenderError) throw err;
        throw new VideoRenderError("the video download failed");
      }
      return file;
    },
  };
}

/** The provider: the local compositor with the hook clip from the video model. */
export function openAiCompatibleVideoProvider(
  local: Omit<LocalVideoOptions, "hookClip" | "name">,
  o: OpenAiCompatibleVideoOptions,
): VideoProvider {
  return localVideoProvider({ ...local, hookClip: openAiCompatibleHookClips(o), name: "openai-compatible" });
}
