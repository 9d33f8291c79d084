/**
 * The `openai-compatible` AI image provider: `POST {baseUrl}/images/generations` with `model`, `prompt`,
 * `size` ("WxH"), `n: 1` and `response_format: "b64_json"` (OpenAI Images API, "Create image"; also spoken
 * by many gateways), bearer key from config `image`. The returned image is decoded and cover-fitted with
 * sharp to the requested pixel size (models produce their own fixed sizes). Each call has its own timeout;
 * any failure (network, timeout, non-2xx, missing or undecodable `data[0].b64_json`) becomes an
 * `ImageGenerationError` with a safe reason that names the status only: the key, the prompt and provider
 * bodies never reach an error, a log or the agent.
 */
import { boundedSharp as sharp } from "../media-limits.ts";
import { type GeneratedImage, ImageGenerationError, type ImageProvider, type ImageRequest } from "./types.ts";

export interface OpenAiCompatibleImageOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  model: string;
  /** Per-image timeout, seconds. */
  timeoutSeconds: number;
}

/** The size string sent to the model: the request's own size (the API takes "WxH"). */
export function sizeParam(req: ImageRequest): string {
  return `${req.width}x${req.height}`;
}

/** Creates the provider. Nothing is sent until `generate` is called. */
export function openAiCompatibleImage(options: OpenAiCompatibleImageOptions): ImageProvider {
  const endpoint = `${options.baseUrl.replace(/\/+$/, "")}/images/generations`;
  return {
    name: "openai-compatible",
    async generate(request: ImageRequest, signal?: AbortSignal): Promise<GeneratedImage> {
      const timeout = AbortSignal.timeout(options.timeoutSeconds * 1000);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: options.model,
            prompt: request.prompt,
            size: sizeParam(request),
            n: 1,
            response_format: "b64_json",
          }),
          signal: combined,
        });
      } catch {
        if (signal?.aborted) throw signal.reason;
        if (timeout.aborted)
          throw new ImageGenerationError(
            `the image provider did not answer within ${options.timeoutSeconds} seconds`,
          );
        throw new ImageGenerationError("the image provider could not be reached");
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        throw new ImageGenerationError(
          res.status === 429
            ? "the image provider is rate limiting (HTTP 429); retry later"
            : `the image provider refused the image (HTTP ${res.status})`,
        );
      }
      let b64: unknown;
      try {
        const body = (await res.json()) as { data?: Array<{ b64_json?: unknown }> };
        b64 = body?.data?.[0]?.b64_json;
      } catch {
        if (signal?.aborted) throw signal.reason;
        throw new ImageGenerationError("the image provider answered with invalid JSON");
      }
      if (typeof b64 !== "string" || b64.length === 0)
        throw new ImageGenerationError("the image provider answered without data[0].b64_json");
      try {
        const bytes = await sharp(Buffer.from(b64, "base64"))
          .resize(request.width, request.height, { fit: "cover" })
          .removeAlpha()
          .jpeg({ quality: 92 })
          .toBuffer();
        return { bytes, mimeType: "image/jpeg", width: request.width, height: request.height };
      } catch {
        throw new ImageGenerationError("the image provider's image could not be decoded");
      }
    },
  };
}
