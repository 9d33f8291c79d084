/**
 * The `openai-compatible` AI image provider: `POST {baseUrl}/images/generations` (OpenAI Images API,
 * "Create image"; also spoken by many gateways) with `model`, `prompt`, `n: 1` and the `size` the model's
 * family takes (./sizes.ts: the nearest aspect, or `AI_IMAGE_SIZE`), plus `response_format: "b64_json"`
 * for dall-e models only (gpt-image models refuse it and always answer base64). The answer's
 * `data[0].b64_json` is decoded and cover-fitted with sharp to the slide's pixel size.
 *
 * Failures become an `ImageGenerationError` for that image, with a safe reason: a 429 is waited out with
 * its `Retry-After` (at most `maxAttempts` attempts, each wait at most `maxRetryWaitSeconds`), then fails
 * naming the attempts; any other refusal fails at once naming the HTTP status and the provider's `param`
 * and `code` (./openai-http.ts), never its message, the prompt or the key. A 5xx or a network failure is
 * not retried: the image may have been generated (and billed) already.
 */
import type { components } from "../contracts/openai.ts";
import { boundedSharp as sharp } from "../media-limits.ts";
import { postJson, readRefusal, refusalText, retryAfterSeconds, sleep } from "../openai-http.ts";
import { requestSize, sizeFamily } from "./sizes.ts";
import { type GeneratedImage, ImageGenerationError, type ImageProvider, type ImageRequest } from "./types.ts";

export interface OpenAiCompatibleImageOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  model: string;
  /** Per-attempt timeout, seconds. */
  timeoutSeconds: number;
  /** AI_IMAGE_SIZE: the `size` to send instead of the model family's nearest size ("auto" or "WxH"). */
  size?: string | undefined;
  /** Attempts in all when the provider answers 429 (default 4). */
  maxAttempts?: number;
  /** Longest `Retry-After` waited, seconds (default 60); a longer one fails at once. */
  maxRetryWaitSeconds?: number;
  /** Injectable wait (tests). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The Images API's shapes, from OpenAI's description (test/contracts/openai.json via scripts/contracts.ts). */
type CreateImage = components["schemas"]["CreateImageRequest"];
type ImagesResponse = components["schemas"]["ImagesResponse"];

/** The request body for `request` (exported for tests and the docs' examples). */
export function requestBody(options: OpenAiCompatibleImageOptions, request: ImageRequest): CreateImage {
  return {
    model: options.model,
    prompt: request.prompt,
    n: 1,
    size: requestSize(options.model, request.width, request.height, options.size),
    ...(sizeFamily(options.model).responseFormat ? { response_format: "b64_json" } : {}),
  };
}

/** Creates the provider. Nothing is sent until `generate` is called. */
export function openAiCompatibleImage(options: OpenAiCompatibleImageOptions): ImageProvider {
  const endpoint = `${options.baseUrl.replace(/\/+$/, "")}/images/generations`;
  const maxAttempts = options.maxAttempts ?? 4;
  const maxWait = options.maxRetryWaitSeconds ?? 60;
  const wait = options.sleep ?? sleep;

  /** One attempt: the response, or an ImageGenerationError for a timeout or an unreachable provider. */
  async function attempt(body: string, signal: AbortSignal | undefined): Promise<Response> {
    const timeout = AbortSignal.timeout(options.timeoutSeconds * 1000);
    try {
      return await postJson(
        endpoint,
        body,
        options.apiKey,
        signal ? AbortSignal.any([signal, timeout]) : timeout,
      );
    } catch {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted)
        throw new ImageGenerationError(
          `the image provider did not answer within ${options.timeoutSeconds} seconds`,
        );
      throw new ImageGenerationError("the image provider could not be reached");
    }
  }

  /** The end of the last decode started: the next one waits for it. */
  let decoding: Promise<void> = Promise.resolve();
  return {
    name: "openai-compatible",
    async generate(request: ImageRequest, signal?: AbortSignal): Promise<GeneratedImage> {
      const body = JSON.stringify(requestBody(options, request));
      let res: Response | undefined;
      for (let n = 1; ; n++) {
        res = await attempt(body, signal);
        if (res.status !== 429) break;
        const after = retryAfterSeconds(res.headers.get("retry-after")) ?? 2 ** n;
        await res.body?.cancel().catch(() => {});
        if (n >= maxAttempts)
          throw new ImageGenerationError(
            `the image provider is rate limiting (HTTP 429) after ${maxAttempts} attempts; retry later`,
          );
        if (after > maxWait)
          throw new ImageGenerationError(
            `the image provider is rate limiting (HTTP 429) and asks to wait ${after} seconds; retry later`,
          );
        await wait(after * 1000, signal ?? new AbortController().signal);
      }
      if (!res.ok) {
        const refusal = await readRefusal(res);
        throw new ImageGenerationError(
          refusal.code === "model_not_found" || refusal.status === 404
            ? `the image provider does not serve the configured model (${refusalText(refusal)}); check AI_IMAGE_MODEL`
            : `the image provider refused the image (${refusalText(refusal)})`,
        );
      }
      let b64: unknown;
      try {
        // Read as the description's shape, every field still checked at run time.
        const answer = (await res.json()) as Partial<ImagesResponse> | null;
        b64 = answer?.data?.[0]?.b64_json;
      } catch {
        if (signal?.aborted) throw signal.reason;
        throw new ImageGenerationError("the image provider answered with invalid JSON");
      }
      if (typeof b64 !== "string" || b64.length === 0)
        throw new ImageGenerationError("the image provider answered without data[0].b64_json");
      // Answers that arrive together are decoded one after another (CPU-bound either way): one decoded
      // picture in memory at a time instead of one per request in flight.
      const data = b64;
      const decoded = decoding.then(() =>
        sharp(Buffer.from(data, "base64"))
          .resize(request.width, request.height, { fit: "cover" })
          .removeAlpha()
          .jpeg({ quality: 92 })
          .toBuffer(),
      );
      decoding = decoded.then(
        () => {},
        () => {},
      );
      try {
        const bytes = await decoded;
        return { bytes, mimeType: "image/jpeg", width: request.width, height: request.height };
      } catch {
        throw new ImageGenerationError("the image provider's image could not be decoded");
      }
    },
  };
}
