/**
 * Picks the AI image provider from config `image.provider` (`local` by default, `openai-compatible` when
 * AI_IMAGE_PROVIDER says so).
 */
import type { Config } from "../../config.ts";
import { localImageProvider } from "./local.ts";
import { openAiCompatibleImage } from "./openai-compatible.ts";
import type { ImageProvider } from "./types.ts";

/** The configured provider. @throws Error when openai-compatible lacks a base URL or model (config also checks). */
export function aiImageProvider(config: Config): ImageProvider {
  if (config.image.provider === "local") return localImageProvider();
  if (!config.image.baseUrl || !config.image.model)
    throw new Error("AI_IMAGE_BASE_URL and AI_IMAGE_MODEL are required for the openai-compatible provider");
  return openAiCompatibleImage({
    baseUrl: config.image.baseUrl,
    apiKey: config.image.apiKey,
    model: config.image.model,
    timeoutSeconds: config.image.timeoutSeconds,
    size: config.image.size,
  });
}
