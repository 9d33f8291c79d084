/**
 * A strict fake of the Videos API shape OpenAI served until its shutdown on 2026-09-24, as gateways still
 * speak it (docs/providers.md "Provider facts", checked 2026-11-25), written from that API reference:
 * - `POST /v1/videos` takes `model`, `prompt`, `seconds` (`"4"`, `"8"` or `"12"`, a string), `size`
 *   (`720x1280` or `1280x720`) and `input_reference`; anything else is 400 `unknown_parameter`, other
 *   durations or sizes 400 `invalid_value` (`param` "seconds" / "size"), a missing `prompt` or `model` 400,
 *   a model not in `models` (`sora-2`, shut down) 404 `model_not_found`; it answers a video object
 *   `{id, object: "video", status: "queued"}`;
 * - `GET /v1/videos/{id}` reports `in_progress` for `pollsBeforeDone` polls, then `completed` (or `failed`
 *   when the scenario says so); `GET /v1/videos/{id}/content` streams the MP4 `clip`;
 * - shared behaviour (models list, 401 for another key, scripted faults): ./openai-api.ts.
 * Scenario `refuse` answers the create call with a 400 content-policy error.
 */
import {
  apiError,
  type FakeOptions,
  invalidValue,
  missingParameter,
  modelCheck,
  type OpenAiFake,
  startOpenAiFake,
  unknownKey,
} from "./openai-api.ts";

export interface FakeVideos extends OpenAiFake {
  /** What the next generation does. */
  scenario: { outcome: "completed" | "failed" | "refuse"; pollsBeforeDone: number };
}

/** Models the fake lists by default: a gateway's own video model (OpenAI's sora-2 is gone). */
export const DEFAULT_VIDEO_MODELS = ["gateway-video-1"];

const PARAMS = ["model", "prompt", "seconds", "size", "input_reference"];

/** Starts the fake serving `clip` (MP4 bytes) as every generated video. */
export async function startFakeVideos(clip: Buffer, options: FakeOptions = {}): Promise<FakeVideos> {
  const jobs = new Map<
    string,
    {
      polls: number;
      outcome: "completed" | "failed";
      model: string;
      prompt: string;
      size: string;
      seconds: string;
      createdAt: number;
    }
  >();
  /** The video object (OpenAI's `VideoResource`: every field present, nulls where nothing applies). */
  const resource = (id: string, job: NonNullable<ReturnType<typeof jobs.get>>, status: string) => ({
    id,
    object: "video",
    model: job.model,
    status,
    progress: status === "queued" ? 0 : status === "in_progress" ? 50 : 100,
    created_at: job.createdAt,
    completed_at: status === "completed" ? job.createdAt + 60 : null,
    expires_at: status === "completed" ? job.createdAt + 86_400 : null,
    prompt: job.prompt,
    size: job.size,
    seconds: job.seconds,
    remixed_from_video_id: null,
    error:
      status === "failed" ? { code: "video_generation_failed", message: "Video generation failed." } : null,
  });
  let next = 0;
  const scenario: FakeVideos["scenario"] = { outcome: "completed", pollsBeforeDone: 2 };
  const fake = (await startOpenAiFake(
    { ...options, apiKey: options.apiKey ?? "test-video-key" },
    DEFAULT_VIDEO_MODELS,
    [
      ({ method, path, body }, f) => {
        if (method !== "POST" || path !== "/v1/videos") return undefined;
        const bad = modelCheck(body, f) ?? unknownKey(body, PARAMS);
        if (bad) return bad;
        if (typeof body.prompt !== "string" || !body.prompt) return missingParameter("prompt");
        if (body.seconds !== undefined && !["4", "8", "12"].includes(body.seconds))
          return invalidValue("seconds", body.seconds, "'4', '8', and '12'");
        if (body.size !== undefined && !["720x1280", "1280x720"].includes(body.size))
          return invalidValue("size", body.size, "'720x1280' and '1280x720'");
        if (fakeVideos.scenario.outcome === "refuse")
          return apiError(
            400,
            "Your request was blocked by our moderation system: secret provider detail.",
            "prompt",
            "moderation_blocked",
          );
        const id = `video_${++next}`;
        const job = {
          polls: 0,
          outcome: fakeVideos.scenario.outcome as "completed" | "failed",
          model: body.model,
          prompt: body.prompt,
          size: body.size ?? "720x1280",
          seconds: body.seconds ?? "4",
          createdAt: 1_760_000_000 + next,
        };
        jobs.set(id, job);
        return { status: 200, json: resource(id, job, "queued") };
      },
      ({ method, path }) => {
        const m = /^\/v1\/videos\/([A-Za-z0-9_]+)(\/content)?$/.exec(path);
        const job = m ? jobs.get(m[1]!) : undefined;
        if (method !== "GET" || !m) return undefined;
        if (!job) return apiError(404, `Video '${m[1]}' not found.`, null, null);
        const done = job.polls > fakeVideos.scenario.pollsBeforeDone;
        if (m[2]) {
          // The content exists only for a completed video.
          if (!done || job.outcome !== "completed")
            return apiError(
              404,
              `Video '${m[1]}' is ${done ? job.outcome : "in_progress"}: its content is available once it is completed.`,
              null,
              null,
            );
          return { status: 200, bytes: clip, contentType: "video/mp4" };
        }
        job.polls += 1;
        const status = job.polls <= fakeVideos.scenario.pollsBeforeDone ? "in_progress" : job.outcome;
        return { status: 200, json: resource(m[1]!, job, status) };
      },
    ],
  )) as FakeVideos;
  const fakeVideos = fake;
  fake.scenario = scenario;
  return fake;
}
