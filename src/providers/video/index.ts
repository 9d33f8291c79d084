/**
 * Picks the video provider from config `video.provider`: `local` (default; ffmpeg composes everything) or
 * `openai-compatible` (the AI UGC hook clip from a video model, the rest composed locally).
 */
import type { Config } from "../../config/index.ts";
import { mediaBinaries } from "../media-binaries.ts";
import { localVideoProvider } from "./local.ts";
import { openAiCompatibleVideoProvider } from "./openai-compatible.ts";
import type { VideoProvider } from "./types.ts";

/** The configured provider. @throws Error when openai-compatible lacks a base URL or model (config also checks). */
export function videoProvider(config: Config): VideoProvider {
  const { ffmpeg, ffprobe } = mediaBinaries(config.media);
  const local = {
    ffmpeg,
    ffprobe,
    timeoutSeconds: Math.max(60, config.worker.operationDeadlineSeconds),
    maxMemoryBytes: config.media.ffmpegMaxMemoryBytes,
  };
  if (config.video.provider === "local") return localVideoProvider(local);
  if (!config.video.baseUrl || !config.video.model)
    throw new Error("AI_VIDEO_BASE_URL and AI_VIDEO_MODEL are required for the openai-compatible provider");
  return openAiCompatibleVideoProvider(local, {
    baseUrl: config.video.baseUrl,
    apiKey: config.video.apiKey,
    model: config.video.model,
    timeoutSeconds: config.video.timeoutSeconds,
  });
}
