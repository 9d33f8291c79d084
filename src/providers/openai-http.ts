/**
 * The HTTP the openai-compatible adapters (text, image, video) share: the JSON POST with the bearer key, what
 * they read from a provider's refusal, and how they wait out a 429. OpenAI's error object is `{"error": {"message", "type", "param", "code"}}` (API reference,
 * "Error codes"); only `param` and `code` are kept, and only when they look like identifiers: the
 * `message` may echo the prompt or part of the key, so it is never read. `Retry-After` is seconds or an
 * HTTP date (RFC 9110 section 10.2.3).
 */
import { measuredFetch } from "../observability/metrics.ts";

/**
 * `POST url` with the JSON `body` and `Authorization: Bearer apiKey` when a key is set. `signal` aborts it.
 * @throws whatever fetch throws (network failure, abort): the caller turns it into its own error.
 */
export function postJson(url: string, body: string, apiKey: string | undefined, signal: AbortSignal) {
  const [provider, operation] = endpointOf(url);
  return measuredFetch(provider, operation, url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    body,
    signal,
  });
}

/** The endpoints `postJson` calls, by the end of their path: the provider and operation they are counted as. */
const ENDPOINTS: Array<[string, [string, string]]> = [
  ["/chat/completions", ["ai_text", "chat.completions"]],
  ["/images/generations", ["ai_image", "images.generations"]],
  ["/images/edits", ["ai_image", "images.edits"]],
];

/** The provider and operation of a `postJson` URL (metrics labels); `openai_compatible`/`other` else. */
function endpointOf(url: string): [string, string] {
  const path = url.split("?")[0] ?? "";
  return ENDPOINTS.find(([end]) => path.endsWith(end))?.[1] ?? ["openai_compatible", "other"];
}

/** Where and how an openai-compatible adapter calls: its config section's values, checked. */
export interface OpenAiEndpoint {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  /** Per request, seconds. */
  timeoutSeconds: number;
}

/**
 * The endpoint in the config section of an openai-compatible provider (`config.ai`, `config.image`,
 * `config.video`), whose environment variables start with `envPrefix` (`AI_TEXT`, `AI_IMAGE`, `AI_VIDEO`).
 * @throws Error naming the variables when the base URL or the model is missing (config also checks).
 */
export function openAiEndpoint(
  section: {
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string | undefined;
    timeoutSeconds: number;
  },
  envPrefix: string,
): OpenAiEndpoint {
  const { baseUrl, apiKey, model, timeoutSeconds } = section;
  if (!baseUrl || !model)
    throw new Error(
      `${envPrefix}_BASE_URL and ${envPrefix}_MODEL are required for the openai-compatible provider`,
    );
  return { baseUrl, apiKey, model, timeoutSeconds };
}

/** The safe part of a provider's error answer. */
export interface Refusal {
  /** HTTP status. */
  status: number;
  /** The request parameter the provider names (`size`, `temperature`), when it names one. */
  param: string | undefined;
  /** The provider's error code (`invalid_value`, `model_not_found`), when it gives one. */
  code: string | undefined;
}

/** A provider-supplied identifier: letters, digits, `_` `.` `-` `[` `]`, at most 64 characters. */
const IDENTIFIER = /^[A-Za-z0-9_.\-[\]]{1,64}$/;

const identifier = (v: unknown) => (typeof v === "string" && IDENTIFIER.test(v) ? v : undefined);

/** Largest error body read, bytes. */
const MAX_ERROR_BYTES = 16 * 1024;

/** Reads `res`'s error body (bounded) and keeps its `param` and `code`. Never throws. */
export async function readRefusal(res: Response): Promise<Refusal> {
  let body: any;
  try {
    const text = await res.text();
    body = text.length <= MAX_ERROR_BYTES ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, param: identifier(body?.error?.param), code: identifier(body?.error?.code) };
}

/** "HTTP 400, param size, code invalid_value": the refusal in words safe for an error or a log. */
export function refusalText(r: Refusal): string {
  return [`HTTP ${r.status}`, r.param && `param ${r.param}`, r.code && `code ${r.code}`]
    .filter(Boolean)
    .join(", ");
}

/** `Retry-After` (seconds or an HTTP date) in seconds, or undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const t = Date.parse(header);
  return Number.isFinite(t) ? Math.max(0, Math.ceil((t - now) / 1000)) : undefined;
}

/** Waits `ms` milliseconds, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
