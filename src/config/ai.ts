/**
 * The AI providers: text (src/providers/ai-text/), images (src/providers/ai-image/), video
 * (src/providers/video/), and what a generation does when one fails (src/domain/ai-fallback.ts). An
 * openai-compatible provider names its base URL and its model: there is no built-in model default, because
 * providers retire models (README "AI providers"); bootstrap checks the model against `GET {base}/models`.
 */
import Type from "typebox";
import { type ConfigArea, ConfigError, type EnvReader, Int, OneOf, Str, stripSlash } from "./env.ts";

const PROVIDERS = ["local", "openai-compatible"] as const;
const MODEL = "none (required with `openai-compatible`)";
const REQUIRED_IN_PRODUCTION = "`local` (none in production: required)";

export const AiEnv = Type.Object({
  AI_TEXT_PROVIDER: OneOf(PROVIDERS, {
    description:
      "`local` (deterministic, offline) or `openai-compatible`; with `NODE_ENV=production` the start refuses until it is set (`local` is allowed when set)",
    defaultText: REQUIRED_IN_PRODUCTION,
  }),
  AI_TEXT_BASE_URL: Str(
    { pattern: "^https?://" },
    { description: "the openai-compatible text provider's base URL", defaultText: "-" },
  ),
  AI_TEXT_API_KEY: Str({}, { description: "its API key, sent as a bearer token", defaultText: "-" }),
  AI_TEXT_MODEL: Str(
    { minLength: 1 },
    {
      description: 'its model, checked against `GET {base}/models` at start ("AI providers" below)',
      defaultText: MODEL,
    },
  ),
  AI_TEXT_TIMEOUT_SECONDS: Int(30, 1, 600, { description: "timeout of one text generation, seconds" }),
  AI_TEXT_TEMPERATURE: Str(
    { pattern: "^(0|[01]\\.[0-9]{1,3}|2|2\\.0{1,3}|1)$" },
    {
      description:
        "sampling temperature 0 to 2, sent only when set; reasoning models refuse any but their default, which is reported as a configuration error naming this variable",
      defaultText: "unset (not sent)",
    },
  ),
  AI_IMAGE_PROVIDER: OneOf(PROVIDERS, {
    description:
      "`local` (designed backgrounds, offline) or `openai-compatible`; with `NODE_ENV=production` the start refuses until it is set (`local` is allowed when set)",
    defaultText: REQUIRED_IN_PRODUCTION,
  }),
  AI_IMAGE_BASE_URL: Str(
    { pattern: "^https?://" },
    { description: "the openai-compatible image provider's base URL", defaultText: "-" },
  ),
  AI_IMAGE_API_KEY: Str({}, { description: "its API key, sent as a bearer token", defaultText: "-" }),
  AI_IMAGE_MODEL: Str({ minLength: 1 }, { description: "its model, checked at start", defaultText: MODEL }),
  AI_IMAGE_TIMEOUT_SECONDS: Int(120, 1, 600, { description: "timeout of one image, seconds" }),
  AI_IMAGE_SIZE: Str(
    { pattern: "^(auto|[1-9][0-9]{1,4}x[1-9][0-9]{1,4})$" },
    {
      description:
        "`auto` or `WxH`: the `size` sent instead of the one chosen from the model's size table (`src/providers/ai-image/sizes.ts`), for gateways with other sizes; the answer is still cover-fitted to the slide",
      defaultText: "the model family's nearest size",
    },
  ),
  AI_IMAGE_CONCURRENCY: Int(4, 1, 16, {
    description:
      "images of one carousel or video run generated at once; each finished image is checkpointed as it finishes, the slide renders take turns one at a time (memory); credits are charged once per generated image",
  }),
  AI_VIDEO_PROVIDER: OneOf(PROVIDERS, {
    description: "`local` (ffmpeg, offline) or `openai-compatible` (AI UGC hook clips from a video model)",
    defaultText: "`local`",
  }),
  AI_VIDEO_BASE_URL: Str(
    { pattern: "^https?://" },
    {
      description:
        "the openai-compatible video provider's base URL: a gateway that still speaks the Videos API shape (OpenAI's is shut down)",
      defaultText: "-",
    },
  ),
  AI_VIDEO_API_KEY: Str({}, { description: "its API key, sent as a bearer token", defaultText: "-" }),
  AI_VIDEO_MODEL: Str({ minLength: 1 }, { description: "its model, checked at start", defaultText: MODEL }),
  AI_VIDEO_TIMEOUT_SECONDS: Int(600, 1, 3600, {
    description: "timeout of one whole video generation (create, polling and download), seconds",
  }),
  AI_FALLBACK: OneOf(["none", "local"], {
    description:
      'what a generation does when the configured AI text or image provider fails: `none` fails the run with the provider\'s error (refunded by the usual rules); `local` lets the offline local provider write or draw that part instead, marked `provider: "local"` on the slide, caption or video in every result, page and view. Never a silent stand-in (docs/providers.md "When a provider fails")',
    defaultText: "`none`",
  }),
});

type Provider = (typeof PROVIDERS)[number];

export interface AiConfig {
  /**
   * The AI text provider (src/providers/ai-text/). `model` is set whenever `provider` is
   * `openai-compatible` (no default). `temperature` (AI_TEXT_TEMPERATURE, 0 to 2) is sent only when set:
   * reasoning models refuse any other than their default.
   */
  ai: {
    provider: Provider;
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string | undefined;
    timeoutSeconds: number;
    temperature: number | undefined;
  };
  /**
   * The AI image provider (src/providers/ai-image/): same shape as `ai`; timeout per image, seconds. `size`
   * (AI_IMAGE_SIZE, "auto" or "WxH") replaces the model family's size (src/providers/ai-image/sizes.ts).
   */
  image: {
    provider: Provider;
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string | undefined;
    timeoutSeconds: number;
    size: string | undefined;
    /**
     * Images of one carousel run or video automation run generated at once (AI_IMAGE_CONCURRENCY, 1..16,
     * default 4; src/domain/concurrency.ts). Each finished image is checkpointed as it finishes.
     */
    concurrency: number;
  };
  /**
   * The video provider (README "Media stack"): `local` composes every template with ffmpeg;
   * `openai-compatible` generates the AI UGC hook clip through `POST {baseUrl}/videos` (a gateway that still
   * speaks the Videos API shape; `model` has no default). Timeout in seconds covers one whole generation
   * (create, polling and download).
   */
  video: {
    provider: Provider;
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string | undefined;
    timeoutSeconds: number;
  };
  /**
   * `AI_FALLBACK`: what a generation does when the configured AI text or image provider fails. `none`
   * (default): the run fails with the provider's error (refunded by the usual rules). `local`: the offline
   * local provider writes or draws that part instead, and every output says so (`provider: "local"` on the
   * slide, caption or video). Never a silent stand-in (src/domain/ai-fallback.ts).
   */
  aiFallback: "none" | "local";
}

export const aiArea: ConfigArea = { title: "AI providers", schema: AiEnv };

/**
 * The AI provider settings.
 * @throws ConfigError naming `AI_{KIND}_BASE_URL` or `AI_{KIND}_MODEL` when an openai-compatible provider
 * lacks it, `AI_TEXT_PROVIDER` or `AI_IMAGE_PROVIDER` when unset in production (DESIGN.md section 5: no
 * stand-in runs there by accident), or a timeout or concurrency out of its bounds.
 */
export function aiConfig(r: EnvReader): AiConfig {
  const { picked } = r;
  for (const kind of ["TEXT", "IMAGE", "VIDEO"] as const) {
    if (picked[`AI_${kind}_PROVIDER`] !== "openai-compatible") continue;
    for (const part of ["BASE_URL", "MODEL"] as const)
      if (!picked[`AI_${kind}_${part}`])
        throw new ConfigError(`AI_${kind}_${part}`, `required when AI_${kind}_PROVIDER=openai-compatible`);
  }
  if (r.production) checkProductionProviders(picked);
  return {
    ai: {
      provider: (picked.AI_TEXT_PROVIDER ?? "local") as Provider,
      baseUrl: picked.AI_TEXT_BASE_URL,
      apiKey: picked.AI_TEXT_API_KEY,
      model: picked.AI_TEXT_MODEL,
      timeoutSeconds: r.num("AI_TEXT_TIMEOUT_SECONDS", 30),
      temperature: picked.AI_TEXT_TEMPERATURE === undefined ? undefined : Number(picked.AI_TEXT_TEMPERATURE),
    },
    image: {
      provider: (picked.AI_IMAGE_PROVIDER ?? "local") as Provider,
      baseUrl: picked.AI_IMAGE_BASE_URL,
      apiKey: picked.AI_IMAGE_API_KEY,
      model: picked.AI_IMAGE_MODEL,
      timeoutSeconds: r.num("AI_IMAGE_TIMEOUT_SECONDS", 120),
      size: picked.AI_IMAGE_SIZE,
      concurrency: r.num("AI_IMAGE_CONCURRENCY", 4),
    },
    video: {
      provider: (picked.AI_VIDEO_PROVIDER ?? "local") as Provider,
      baseUrl: picked.AI_VIDEO_BASE_URL ? stripSlash(picked.AI_VIDEO_BASE_URL) : undefined,
      apiKey: picked.AI_VIDEO_API_KEY,
      model: picked.AI_VIDEO_MODEL,
      timeoutSeconds: r.num("AI_VIDEO_TIMEOUT_SECONDS", 600),
    },
    aiFallback: picked.AI_FALLBACK === "local" ? "local" : "none",
  };
}

/**
 * In production (NODE_ENV=production) no stand-in runs by accident (DESIGN.md section 5): the AI text and
 * image providers must be chosen explicitly (`local` stays allowed when set).
 * @throws ConfigError naming AI_TEXT_PROVIDER or AI_IMAGE_PROVIDER.
 */
function checkProductionProviders(picked: Readonly<Record<string, string>>): void {
  for (const kind of ["TEXT", "IMAGE"] as const) {
    const variable = `AI_${kind}_PROVIDER`;
    if (!picked[variable])
      throw new ConfigError(
        variable,
        "must be set in production (NODE_ENV=production): openai-compatible, or local for the offline stand-in; no AI provider is chosen by default there",
      );
  }
}
