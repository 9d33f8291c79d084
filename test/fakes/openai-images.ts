/**
 * A fake OpenAI-compatible image server (`POST {base}/images/generations`, OpenAI Images API "Create image"
 * JSON): answers `{created, data: [{b64_json}]}` with a real PNG of the requested `size` drawn by sharp, or a
 * scripted failure (status, delay, malformed body). Records each request (path, Authorization, JSON body).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

export type Reply = "ok" | { status: number } | { delayMs: number } | "no-data" | "not-json" | "not-an-image";

export interface FakeImageServer {
  /** e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  requests: Array<{ path: string; auth: string | undefined; body: any }>;
  /** Replies used in order; when empty, "ok". */
  script: Reply[];
  close(): Promise<void>;
}

export async function startFakeImageServer(): Promise<FakeImageServer> {
  const state: FakeImageServer = {
    baseUrl: "",
    requests: [],
    script: [],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", async (): Promise<void> => {
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      state.requests.push({ path: req.url ?? "", auth: req.headers.authorization, body });
      const reply = state.script.shift() ?? "ok";
      if (req.method !== "POST" || req.url !== "/v1/images/generations") return void res.writeHead(404).end();
      if (typeof reply === "object" && "status" in reply)
        return void res
          .writeHead(reply.status, { "content-type": "application/json" })
          .end('{"error":{"message":"key sk-secret rejected"}}');
      if (typeof reply === "object" && "delayMs" in reply)
        await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply === "not-json")
        return void res.writeHead(200, { "content-type": "application/json" }).end("{oops");
      if (reply === "no-data")
        return void res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
      const [w, h] = String(body?.size ?? "256x256")
        .split("x")
        .map(Number);
      const png =
        reply === "not-an-image"
          ? Buffer.from("definitely not an image")
          : await sharp({ create: { width: w || 256, height: h || 256, channels: 3, background: "#2a9d8f" } })
              .composite([
                {
                  input: Buffer.from(
                    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><circle cx="${(w ?? 0) / 2}" cy="${(h ?? 0) / 2}" r="${Math.min(w ?? 0, h ?? 0) / 3}" fill="#e9c46a"/></svg>`,
                  ),
                },
              ])
              .png()
              .toBuffer();
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ created: 1, data: [{ b64_json: png.toString("base64") }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
