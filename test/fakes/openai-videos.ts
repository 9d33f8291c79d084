/**
 * A fake of OpenAI's Videos API (https://platform.openai.com/docs/api-reference/videos) on a loopback port:
 * `POST /v1/videos` (JSON `model`, `prompt`, `seconds`, `size`) answers a video object `{id, object:
 * "video", status: "queued"}`; `GET /v1/videos/{id}` reports `in_progress` for `pollsBeforeDone` polls,
 * then `completed` (or `failed` when the scenario says so); `GET /v1/videos/{id}/content` streams the MP4
 * `clip`. Requests are recorded (path, method, authorization, JSON body).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeVideos {
  baseUrl: string;
  requests: Array<{ method: string; path: string; auth: string | undefined; body: any }>;
  /** What the next generation does. */
  scenario: { outcome: "completed" | "failed" | "refuse"; pollsBeforeDone: number };
  close(): Promise<void>;
}

/** Starts the fake serving `clip` (MP4 bytes) as every generated video. */
export async function startFakeVideos(clip: Buffer): Promise<FakeVideos> {
  const jobs = new Map<string, { polls: number; outcome: "completed" | "failed" }>();
  let next = 0;
  const fake: FakeVideos = {
    baseUrl: "",
    requests: [],
    scenario: { outcome: "completed", pollsBeforeDone: 2 },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      const path = req.url ?? "";
      fake.requests.push({
        method: req.method ?? "",
        path,
        auth: req.headers.authorization,
        body: raw ? JSON.parse(raw) : null,
      });
      if (req.headers.authorization !== "Bearer test-video-key")
        return json(res, 401, { error: { message: "Incorrect API key provided: sk-secret-detail" } });
      if (req.method === "POST" && path === "/v1/videos") {
        if (fake.scenario.outcome === "refuse")
          return json(res, 400, { error: { message: "prompt rejected: secret provider detail" } });
        const id = `video_${++next}`;
        jobs.set(id, { polls: 0, outcome: fake.scenario.outcome });
        return json(res, 200, { id, object: "video", status: "queued", progress: 0 });
      }
      const m = /^\/v1\/videos\/([A-Za-z0-9_]+)(\/content)?$/.exec(path);
      const job = m ? jobs.get(m[1]!) : undefined;
      if (req.method !== "GET" || !m || !job) return json(res, 404, { error: { message: "not found" } });
      if (m[2]) {
        return res
          .writeHead(200, { "content-type": "video/mp4", "content-length": String(clip.length) })
          .end(clip);
      }
      job.polls += 1;
      const status = job.polls <= fake.scenario.pollsBeforeDone ? "in_progress" : job.outcome;
      return json(res, 200, {
        id: m[1],
        object: "video",
        status,
        progress: status === "in_progress" ? 50 : 100,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
