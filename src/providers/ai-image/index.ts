/**
 * Picks the AI image provider from config `image.provider` (`local` by default, `openai-compatible` when
 * AI_IMAGE_PROVIDER says so).
 */
import type { Config } from "../../config/index.ts";
import { openAiEndpoint } from "../openai-http.ts";
import { localImageProvider } from "./local.ts";
import { openAiCompatibleImage } from "./openai-compatible.ts";
import type { ImageProvider } from "./types.ts";

/** The configured provider. @throws Error when openai-compatible lacks a base URL or model (config also checks). */
export function aiImageProvider(config: Config): ImageProvider {
  if (config.image.provider === "local") return localImageProvider();
  return openAiCompatibleImage({ ...openAiEndpoint(config.image, "AI_IMAGE"), size: config.image.size });
}
