/**
 * Picks the AI text provider from config `ai.provider` (`local` by default, `openai-compatible` when set).
 */
import type { Config } from "../../config/index.ts";
import { openAiEndpoint } from "../openai-http.ts";
import { localAiText } from "./local.ts";
import { openAiCompatibleAiText } from "./openai-compatible.ts";
import type { AiTextProvider } from "./types.ts";

/** The configured provider. @throws Error when openai-compatible lacks a base URL or model (config also checks). */
export function aiTextProvider(config: Config): AiTextProvider {
  if (config.ai.provider === "local") return localAiText;
  return openAiCompatibleAiText({
    ...openAiEndpoint(config.ai, "AI_TEXT"),
    temperature: config.ai.temperature,
  });
}
