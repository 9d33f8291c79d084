/**
 * The `openai-compatible` video provider: the AI UGC hook clip comes from a video generation model that
 * speaks OpenAI's Videos API (https://platform.openai.com/docs/api-reference/videos):
 *   `POST {baseUrl}/videos` with JSON `{model, prompt, seconds, size}` -> `{id, status}`,
 *   `GET {baseUrl}/videos/{id}` polled until `status` is `completed` (or `failed`),
 *   `GET {baseUrl}/videos/{id}/content` -> the MP4 bytes.
 * Everything else (the 2x2 grid, the single fade, the CTA segment, the hook text overlay) is composed by
 * the local ffmpeg compositor (./local.ts). The key is sent as a Bearer token and never logged; provider
 * bodies never reach errors (VideoRenderError reasons are fixed texts). One generation (create, polling,
 * download) is bounded by `timeoutSeconds`; the create call is never retried (a retry could start and bill
 * a second generation).
 */
import { createWriteStream } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
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

/** Portrait size asked of the model (OpenAI Videos API `size`); the compositor scales it to 1080x1920. */
const CLIP_SIZE = "720x1280";

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

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
          return await fetch(url, { ...init, headers: { ...headers, ...init.headers }, signal });
        } catch {
          throw new VideoRenderError(
            deadline.aborted
              ? "the video model did not finish in time"
              : "the video model could not be reached",
          );
        }
      };
      const created = await call(`${base}/videos`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: o.model,
          prompt: `A vertical UGC-style social video hook, handheld, natural light. On-screen idea: ${prompt}`,
          seconds: String(seconds),
          size: CLIP_SIZE,
        }),
      });
      if (!created.ok)
        throw new VideoRenderError(`the video model refused the request (HTTP ${created.status})`);
      const job = (await created.json().catch(() => null)) as { id?: unknown; status?: unknown } | null;
      if (!job || typeof job.id !== "string" || !/^[A-Za-z0-9_.-]{1,200}$/.test(job.id))
        throw new VideoRenderError("the video model returned no video id");
      const id = encodeURIComponent(job.id);
      let status = job.status;
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
        status = ((await polled.json().catch(() => null)) as { status?: unknown } | null)?.status;
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
