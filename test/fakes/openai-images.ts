/**
 * A strict fake of OpenAI's Images API, `POST /v1/images/generations` ("Create image"), written from the API
 * reference as summarised in docs/providers.md ("Provider facts", checked 2026-11-25), not from our requests:
 * - parameters per model family (anything else is 400 `unknown_parameter`): gpt-image models take `model`,
 *   `prompt`, `n`, `size`, `quality`, `background`, `moderation`, `output_format`, `output_compression`,
 *   `partial_images`, `stream`, `user` and always answer `data[].b64_json`; `response_format` (`url` |
 *   `b64_json`, default `url`) and `style` are dall-e parameters;
 * - sizes (anything else is 400 `invalid_value`, `param: "size"`): gpt-image-1, -1-mini, -1.5: `1024x1024`,
 *   `1536x1024`, `1024x1536`, `auto`; gpt-image-2: `auto` or `WxH` with both edges multiples of 16, the long
 *   edge at most 3840, long/short at most 3, 655,360 to 8,294,400 pixels; dall-e-3: `1024x1024`,
 *   `1792x1024`, `1024x1792`; dall-e-3 takes `n: 1` only;
 * - a missing `prompt` or `model` is 400; a model not in `models` (gpt-image-1 was shut down on
 *   2026-10-23) is 404 `model_not_found`;
 * - shared behaviour (models list, 401, scripted faults, latency): ./openai-api.ts.
 * Images are real PNGs of the answered size drawn by sharp. `script` keeps the older scripted replies
 * (`{status}`, `{delayMs}`, `no-data`, `not-json`, `not-an-image`) for the adapter's failure tests.
 */
import sharp from "sharp";
import {
  type ApiError,
  type FakeOptions,
  invalidValue,
  missingParameter,
  modelCheck,
  type OpenAiFake,
  startOpenAiFake,
  unknownKey,
} from "./openai-api.ts";

export type Reply = "ok" | { status: number } | { delayMs: number } | "no-data" | "not-json" | "not-an-image";

export interface FakeImageServer extends OpenAiFake {
  /** Replies used in order for requests that pass validation; when empty, "ok". */
  script: Reply[];
}

/** Models the fake lists by default: OpenAI's image models still served on 2026-11-25. */
export const DEFAULT_IMAGE_MODELS = ["gpt-image-1.5", "gpt-image-1-mini", "gpt-image-2", "dall-e-3"];

const GPT_IMAGE_PARAMS = [
  "model",
  "prompt",
  "n",
  "size",
  "quality",
  "background",
  "moderation",
  "output_format",
  "output_compression",
  "partial_images",
  "stream",
  "user",
];
const DALL_E_PARAMS = ["model", "prompt", "n", "size", "quality", "response_format", "style", "user"];
const FIXED_SIZES: Record<string, string[]> = {
  "gpt-image-1": ["1024x1024", "1536x1024", "1024x1536", "auto"],
  "dall-e-3": ["1024x1024", "1792x1024", "1024x1792"],
};

const quoted = (list: string[]) =>
  list.map((s, i) => `${i === list.length - 1 && i > 0 ? "and " : ""}'${s}'`).join(", ");

/** The answered pixel size for `size` under `model`, or the API's error. */
function sizeFor(model: string, size: unknown): { w: number; h: number } | ApiError {
  const s = size ?? (model.startsWith("dall-e") ? "1024x1024" : "auto");
  if (s === "auto" && model.startsWith("gpt-image")) return { w: 1024, h: 1024 };
  if (model === "gpt-image-2") {
    const m = /^(\d{2,5})x(\d{2,5})$/.exec(String(s));
    const [w, h] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
    const long = Math.max(w, h);
    const short = Math.min(w, h);
    const ok =
      m &&
      w % 16 === 0 &&
      h % 16 === 0 &&
      long <= 3840 &&
      long <= 3 * short &&
      w * h >= 655_360 &&
      w * h <= 8_294_400;
    return ok
      ? { w, h }
      : invalidValue(
          "size",
          s,
          "'auto' or WxH with both edges multiples of 16, the long edge at most 3840, an aspect ratio of at most 3:1 and 655360 to 8294400 pixels",
        );
  }
  const family = model.startsWith("gpt-image-1") ? "gpt-image-1" : model;
  const allowed = FIXED_SIZES[family] ?? [];
  if (!allowed.includes(String(s))) return invalidValue("size", s, quoted(allowed));
  const [w, h] = String(s).split("x").map(Number);
  return { w: w!, h: h! };
}

/** A PNG of `w` x `h`: a teal field with a yellow disc. */
async function png(w: number, h: number): Promise<Buffer> {
  const disc = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><circle cx="${w / 2}" cy="${h / 2}" r="${Math.min(w, h) / 3}" fill="#e9c46a"/></svg>`;
  return sharp({ create: { width: w, height: h, channels: 3, background: "#2a9d8f" } })
    .composite([{ input: Buffer.from(disc) }])
    .png()
    .toBuffer();
}

/** Starts the fake. `models` defaults to DEFAULT_IMAGE_MODELS. */
export async function startFakeImageServer(options: FakeOptions = {}): Promise<FakeImageServer> {
  const script: Reply[] = [];
  const fake = (await startOpenAiFake(options, DEFAULT_IMAGE_MODELS, [
    async ({ method, path, body }, f) => {
      if (method !== "POST" || path !== "/v1/images/generations") return undefined;
      const bad = modelCheck(body, f);
      if (bad) return bad;
      const model = String(body.model);
      const dallE = model.startsWith("dall-e");
      const unknown = unknownKey(body, dallE ? DALL_E_PARAMS : GPT_IMAGE_PARAMS);
      if (unknown) return unknown;
      if (typeof body.prompt !== "string" || body.prompt.length === 0) return missingParameter("prompt");
      if (model === "dall-e-3" && body.n !== undefined && body.n !== 1) return invalidValue("n", body.n, "1");
      if (dallE && body.response_format !== undefined && !["url", "b64_json"].includes(body.response_format))
        return invalidValue("response_format", body.response_format, "'url' and 'b64_json'");
      const size = sizeFor(model, body.size);
      if ("status" in size) return size;
      const reply = script.shift() ?? "ok";
      if (typeof reply === "object" && "status" in reply)
        return {
          status: reply.status,
          json: {
            error: { message: "key sk-secret rejected", type: "server_error", param: null, code: null },
          },
        };
      if (typeof reply === "object" && "delayMs" in reply)
        await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply === "not-json")
        return { status: 200, bytes: Buffer.from("{oops"), contentType: "application/json" };
      if (reply === "no-data") return { status: 200, json: { created: 1, data: [] } };
      const image =
        reply === "not-an-image" ? Buffer.from("definitely not an image") : await png(size.w, size.h);
      if (dallE && (body.response_format ?? "url") === "url")
        return {
          status: 200,
          json: { created: 1, data: [{ url: "https://images.example/generated.png" }] },
        };
      return { status: 200, json: { created: 1, data: [{ b64_json: image.toString("base64") }] } };
    },
  ])) as FakeImageServer;
  fake.script = script;
  return fake;
}
