/**
 * Picks the AI text provider from config `ai.provider` (`local` by default, `openai-compatible` when set).
 */
import type { Config } from "../../config.ts";
import { localAiText } from "./local.ts";
import { openAiCompatibleAiText } from "./openai-compatible.ts";
import type { AiTextProvider } from "./types.ts";

/** The configured provider. @throws Error when openai-compatible lacks a base URL or model (config also checks). */
export function aiTextProvider(config: Config): AiTextProvider {
  if (config.ai.provider === "local") return localAiText;
  if (!config.ai.baseUrl || !config.ai.model)
    throw new Error("AI_TEXT_BASE_URL and AI_TEXT_MODEL are required for the openai-compatible provider");
  return openAiCompatibleAiText({
    baseUrl: config.ai.baseUrl,
    apiKey: config.ai.apiKey,
    model: config.ai.model,
    timeoutSeconds: config.ai.timeoutSeconds,
    temperature: config.ai.temperature,
  });
}
