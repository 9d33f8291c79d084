/**
 * Test helpers for driving a network adapter directly against the fakes (test only): a local media host
 * that serves sample files over HTTP (the fakes pull `publicUrl()` like the networks do), `DeliveryJob`
 * builders, and `drive`, which runs `step` the way the delivery engine does (saved ids merged after each
 * `save`, the next step from the saved state) without waiting `pollAfterSeconds`.
 */
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";
import type { Readable } from "node:stream";
import type {
  DeliveryJob,
  JobMedia,
  NetworkPublisher,
  StepResult,
  TokenSet,
} from "../../src/providers/social/network.ts";
import type { Network } from "../../src/providers/social/types.ts";

export interface MediaHost {
  url: string;
  /** Serves `file` (or `bytes`) as `name` and returns the JobMedia the adapter sees. */
  add(input: {
    name: string;
    file?: string;
    bytes?: Buffer;
    kind: "image" | "video";
    mime: string;
    durationSeconds?: number;
  }): Promise<JobMedia>;
  /** How many times each name was downloaded. */
  downloads: Map<string, number>;
}

/** Starts a media host on 127.0.0.1 (closed after the test file). */
export async function startMediaHost(): Promise<MediaHost> {
  const files = new Map<string, { bytes: Buffer; mime: string }>();
  const downloads = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").slice(1).split("?")[0]!);
    const f = files.get(name);
    if (!f) return void res.writeHead(404).end();
    downloads.set(name, (downloads.get(name) ?? 0) + 1);
    res.writeHead(200, { "content-type": f.mime, "content-length": String(f.bytes.length) }).end(f.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url,
    downloads,
    async add(input) {
      const bytes = input.bytes ?? (await readFile(input.file!));
      files.set(input.name, { bytes, mime: input.mime });
      const size = input.file ? (await stat(input.file)).size : bytes.length;
      return {
        assetId: input.name,
        kind: input.kind,
        mime: input.mime,
        width: null,
        height: null,
        bytes: size,
        durationSeconds: input.durationSeconds,
        publicUrl: () => `${url}/${encodeURIComponent(input.name)}`,
        async open(range?: { start: number; end: number }): Promise<Readable> {
          if (input.file && !input.bytes) return createReadStream(input.file, range);
          const { Readable } = await import("node:stream");
          return Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes]);
        },
      };
    },
  };
}

/** A delivery job for `network` with the given tokens, post and saved ids. */
export function jobFor(input: {
  network: Network;
  networkAccountId: string;
  handle?: string;
  tokens: TokenSet | string;
  caption?: string;
  title?: string | null;
  type: string;
  media: JobMedia[];
  options?: Record<string, unknown>;
  settings?: Record<string, unknown>;
}): DeliveryJob {
  const tokens = typeof input.tokens === "string" ? { accessToken: input.tokens, scopes: [] } : input.tokens;
  return {
    delivery: {
      id: `d-${Math.random().toString(36).slice(2)}`,
      state: "pending",
      networkIds: {},
      attempt: 0,
    },
    post: {
      caption: input.caption ?? "",
      title: input.title ?? null,
      type: input.type,
      media: input.media,
      options: input.options ?? {},
    },
    account: {
      id: "acc-1",
      network: input.network,
      networkAccountId: input.networkAccountId,
      handle: input.handle ?? null,
      tokens,
      settings: input.settings ?? {},
      metadata: {},
    },
  };
}

/** Saves ids into `job.delivery.networkIds` like the engine's `save`. */
export function saverFor(job: DeliveryJob): (patch: Record<string, unknown>) => Promise<void> {
  return async (patch) => {
    job.delivery.networkIds = { ...job.delivery.networkIds, ...patch };
  };
}

/**
 * Runs `step` until the delivery is published or failed (at most `maxSteps`), like the engine; returns the
 * final result and the intermediate states. Errors thrown by a step propagate.
 */
export async function drive(
  publisher: NetworkPublisher,
  job: DeliveryJob,
  maxSteps = 30,
): Promise<{ result: StepResult; states: string[] }> {
  const states: string[] = [];
  const save = saverFor(job);
  for (let i = 0; i < maxSteps; i++) {
    const result = await publisher.step(job, save);
    states.push(result.state);
    job.delivery.attempt += 1;
    if (result.state === "published" || result.state === "failed") return { result, states };
    job.delivery.state = result.state;
  }
  throw new Error(`delivery not finished after ${maxSteps} steps (states: ${states.join(",")})`);
}
