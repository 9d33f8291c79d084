/**
 * Checks each `openai-compatible` AI provider's configured model against `GET {base}/models` (OpenAI API
 * reference, "List models": `{object: "list", data: [{id, object: "model", created, owned_by}]}`), so a
 * retired or mistyped model stops the start instead of failing every generation (docs/providers.md "AI
 * text"). Used by bootstrap (`boot({checkProviders: true})`, the `all`, `serve` and `worker` commands) and by
 * `admin providers check`.
 *
 * Outcomes per provider: `listed`; `not_listed` (the start stops with one line naming the variable and the
 * listed models that would fit); `no_models_endpoint` (a gateway without the endpoint: a warning); or
 * `unavailable` (unreachable, refused, or not a model list: a warning, the provider may be down for a
 * moment). The key is sent as a bearer token and never printed; only the endpoint's origin and path are.
 */
import { type Config, ConfigError } from "../config/index.ts";

export type ProviderKind = "text" | "image" | "video";

export interface ModelCheck {
  kind: ProviderKind;
  /** The setting that names the model (AI_TEXT_MODEL, AI_IMAGE_MODEL, AI_VIDEO_MODEL). */
  variable: string;
  model: string;
  /** `{base}/models` without credentials. */
  endpoint: string;
  status: "listed" | "not_listed" | "no_models_endpoint" | "unavailable";
  /** How many models the endpoint listed (0 when it listed none or could not be read). */
  listed: number;
  /** Listed models of this provider's kind (at most 20), or every listed model when none looks the part. */
  fitting: string[];
  /** One line for the operator. */
  message: string;
}

/** Model ids that look like each kind (a hint for the operator, never a refusal on its own). */
const KIND_PATTERNS: Record<ProviderKind, RegExp> = {
  image: /image|dall-e|flux|stable-diffusion|sdxl|imagen|recraft|ideogram/i,
  video: /video|sora|veo|kling|runway|luma|hailuo|seedance|wan-?2/i,
  text: /^(?!.*(image|dall-e|sora|video|tts|whisper|embed|moderation|transcribe|realtime|audio)).*/i,
};

const MAX_LISTED = 20;

/** The configured openai-compatible providers: kind, variable, base URL, key and model. */
function configured(config: Config) {
  const out: Array<{ kind: ProviderKind; base: string; key: string | undefined; model: string }> = [];
  const add = (
    kind: ProviderKind,
    c: {
      provider: string;
      baseUrl?: string | undefined;
      apiKey?: string | undefined;
      model?: string | undefined;
    },
  ) => {
    if (c.provider === "openai-compatible" && c.baseUrl && c.model)
      out.push({ kind, base: c.baseUrl.replace(/\/+$/, ""), key: c.apiKey, model: c.model });
  };
  add("text", config.ai);
  add("image", config.image);
  add("video", config.video);
  return out;
}

/** `url` without user name or password. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.href;
  } catch {
    return "(invalid URL)";
  }
}

/** Checks one provider (see the module comment). Never throws. */
async function checkOne(
  p: { kind: ProviderKind; base: string; key: string | undefined; model: string },
  timeoutSeconds: number,
): Promise<ModelCheck> {
  const variable = `AI_${p.kind.toUpperCase()}_MODEL`;
  const endpoint = safeUrl(`${p.base}/models`);
  const result = (status: ModelCheck["status"], ids: string[], message: string): ModelCheck => {
    const fitting = ids.filter((id) => KIND_PATTERNS[p.kind].test(id));
    return {
      kind: p.kind,
      variable,
      model: p.model,
      endpoint,
      status,
      listed: ids.length,
      fitting: (fitting.length > 0 ? fitting : ids).slice(0, MAX_LISTED),
      message,
    };
  };
  let res: Response;
  try {
    res = await fetch(`${p.base}/models`, {
      headers: { accept: "application/json", ...(p.key ? { authorization: `Bearer ${p.key}` } : {}) },
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
  } catch {
    return result(
      "unavailable",
      [],
      `${variable}: ${endpoint} could not be reached; the model ${p.model} was not checked`,
    );
  }
  if (res.status === 404 || res.status === 405 || res.status === 501) {
    await res.body?.cancel().catch(() => {});
    return result(
      "no_models_endpoint",
      [],
      `${variable}: ${endpoint} is not served (HTTP ${res.status}); the model ${p.model} was not checked`,
    );
  }
  let ids: string[] | undefined;
  try {
    const body = (await res.json()) as { data?: Array<{ id?: unknown }> };
    if (res.ok && Array.isArray(body?.data))
      ids = body.data.map((m) => m?.id).filter((id): id is string => typeof id === "string");
  } catch {
    ids = undefined;
  }
  if (!ids)
    return result(
      "unavailable",
      [],
      `${variable}: ${endpoint} answered HTTP ${res.status} without a model list; the model ${p.model} was not checked`,
    );
  if (ids.includes(p.model)) return result("listed", ids, `${variable}: ${p.model} is listed by ${endpoint}`);
  const r = result("not_listed", ids, "");
  r.message = `${variable}: ${p.model} is not listed by ${endpoint}; listed models that would fit: ${r.fitting.join(", ") || "none"}`;
  return r;
}

/** Checks every configured openai-compatible provider's model. `timeoutSeconds` per request (default 10). */
export async function checkProviderModels(config: Config, timeoutSeconds = 10): Promise<ModelCheck[]> {
  return Promise.all(configured(config).map((p) => checkOne(p, timeoutSeconds)));
}

/** The ConfigError for the first model not listed, or undefined. */
export function unlistedModelError(checks: ModelCheck[]): ConfigError | undefined {
  const bad = checks.find((c) => c.status === "not_listed");
  if (!bad) return undefined;
  return new ConfigError(bad.variable, bad.message.slice(bad.variable.length + 2));
}
