/**
 * Streaming media upload: parses one multipart form with busboy, requires the `csrf_token` field
 * before the file (browsers send fields in document order), sniffs the type from the first bytes
 * (file-type; JPEG/PNG/WEBP/MP4 only, never by name or declared type), streams to a temporary file while
 * counting bytes against the kind's limit (config `media.maxImageBytes` / `maxVideoBytes`), then measures
 * (image-size / ffprobe), refuses pixel sizes and durations over MEDIA_LIMITS (`checkLimits`) and moves the
 * file into storage.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { once } from "node:events";
import type { Request } from "express";
import busboy from "busboy";
import type { AppContext } from "../context.ts";
import {
  ACCEPTED,
  type AcceptedMime,
  FfprobeMissingError,
  imageDimensions,
  probeVideo,
  SNIFF_BYTES,
  sniffType,
} from "../providers/media-probe.ts";
import { mediaBinaries } from "../providers/media-binaries.ts";
import { imageLimitProblem, videoLimitProblem } from "../providers/media-limits.ts";
import type { MediaStorage } from "../providers/storage.ts";

/** A refused upload: HTTP status and a message safe to show. */
export class UploadError extends Error {
  override name = "UploadError";
  readonly status: 400 | 403 | 413 | 415 | 503;
  constructor(status: 400 | 403 | 413 | 415 | 503, message: string) {
    super(message);
    this.status = status;
  }
}

export interface UploadedFile {
  storageKey: string;
  mime: AcceptedMime;
  kind: "image" | "video";
  bytes: number;
  sha256: string;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  /** Videos: frames per second and the codecs ffprobe names (null for images). */
  frameRate: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
  originalName: string | null;
}

export interface UploadResult {
  fields: Record<string, string>;
  file: UploadedFile;
}

const MAX_FIELD_BYTES = 4096;

/**
 * Reads the multipart request. `checkCsrf(fields)` runs when the file part starts.
 * @throws UploadError (400 malformed/no file, 403 CSRF, 413 too large, 415 type) with nothing stored.
 */
export async function receiveUpload(
  ctx: AppContext,
  req: Request,
  storage: MediaStorage,
  checkCsrf: (fields: Record<string, string>) => boolean,
): Promise<UploadResult> {
  const { maxImageBytes, maxVideoBytes } = ctx.config.media;
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      limits: {
        files: 1,
        fields: 10,
        fieldSize: MAX_FIELD_BYTES,
        fileSize: Math.max(maxImageBytes, maxVideoBytes) + 1,
        parts: 12,
      },
    });
  } catch {
    throw new UploadError(400, "the upload must be a multipart form");
  }
  const fields: Record<string, string> = {};
  let filePromise: Promise<UploadedFile> | undefined;
  let fileStream: (NodeJS.ReadableStream & { destroy(err?: Error): unknown }) | undefined;
  let temp: string | undefined;
  let onAbort: (() => void) | undefined;

  const done = new Promise<void>((resolve, reject) => {
    // A client that goes away mid-body: the part stream is destroyed so the temp file's writer closes its
    // descriptor, and the request fails; the temp file is removed below.
    onAbort = () => {
      const err = new UploadError(400, "the upload was interrupted before it finished");
      fileStream?.destroy(err);
      reject(err);
    };
    req.once("aborted", onAbort);
    req.once("error", onAbort);
    req.once("close", () => {
      if (!req.complete) onAbort?.();
    });
    bb.on("field", (name, value) => {
      if (/^[a-z_]{1,32}$/.test(name)) fields[name] = value;
    });
    bb.on("file", (_name, stream, info) => {
      if (filePromise || !checkCsrf(fields)) {
        stream.resume();
        if (!filePromise)
          filePromise = Promise.reject(
            new UploadError(403, "the form has expired; reload the page and try again"),
          );
        filePromise.catch(() => {});
        return;
      }
      fileStream = stream;
      // A client that goes away while the temp file is being opened destroys the part stream before
      // writeSniffed reads it: without a listener that error would be an uncaught exception (and stop the
      // service). writeSniffed still sees it, from the destroyed stream's iterator.
      stream.on("error", () => {});
      filePromise = (async () => {
        temp = await storage.tempPath();
        return writeSniffed(stream, temp, info.filename, { maxImageBytes, maxVideoBytes });
      })();
      filePromise.catch(() => stream.resume());
    });
    bb.on("error", () => reject(new UploadError(400, "the upload could not be read")));
    bb.on("close", () => resolve());
  });
  req.pipe(bb);
  try {
    await done;
    if (!filePromise) throw new UploadError(400, "choose a file to upload");
    const file = await filePromise;
    const { storageKey, ...rest } = file;
    const key = storage.newKey(ACCEPTED[file.mime].ext);
    await measure(
      file,
      temp!,
      mediaBinaries(ctx.config.media).ffprobe,
      ctx.config.media.ffmpegMaxMemoryBytes,
    );
    checkLimits(file, fields.purpose === "cta");
    await storage.putFile(key, temp!);
    temp = undefined;
    return {
      fields,
      file: {
        ...rest,
        storageKey: key,
        width: file.width,
        height: file.height,
        durationSeconds: file.durationSeconds,
        frameRate: file.frameRate,
        videoCodec: file.videoCodec,
        audioCodec: file.audioCodec,
      },
    };
  } finally {
    if (onAbort) {
      req.off("aborted", onAbort);
      req.off("error", onAbort);
    }
    req.unpipe(bb);
    // The writer must have closed its descriptor before the file is removed (it settles once its part
    // stream ended or was destroyed).
    if (filePromise) await filePromise.catch(() => {});
    if (temp) await rm(temp, { force: true }).catch(() => {});
  }
}

async function writeSniffed(
  stream: NodeJS.ReadableStream & { truncated?: boolean },
  temp: string,
  filename: string | undefined,
  limits: { maxImageBytes: number; maxVideoBytes: number },
): Promise<UploadedFile> {
  const out = createWriteStream(temp, { mode: 0o600 });
  const hash = createHash("sha256");
  const head: Buffer[] = [];
  let headBytes = 0;
  let mime: AcceptedMime | undefined;
  let limit = Number.POSITIVE_INFINITY;
  let bytes = 0;
  const write = async (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limit) throw new UploadError(413, `the file is larger than ${limit} bytes`);
    hash.update(chunk);
    if (!out.write(chunk)) await once(out, "drain");
  };
  const decide = async () => {
    mime = await sniffType(Buffer.concat(head));
    if (!mime) throw new UploadError(415, "only JPEG, PNG, WEBP images and MP4 videos can be uploaded");
    limit = ACCEPTED[mime].kind === "image" ? limits.maxImageBytes : limits.maxVideoBytes;
    const buffered = Buffer.concat(head);
    head.length = 0;
    await write(buffered);
  };
  // On a refusal the rest of the part is still consumed (and discarded) so that busboy can finish the
  // request; destroying the part stream mid-way would stall the parser.
  let failure: unknown;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (failure) continue;
      try {
        if (!mime) {
          head.push(chunk);
          headBytes += chunk.length;
          if (headBytes >= SNIFF_BYTES) await decide();
          continue;
        }
        await write(chunk);
      } catch (err) {
        failure = err;
      }
    }
  } catch (err) {
    // The part stream was destroyed (client gone, request aborted).
    failure ??= err;
  }
  try {
    if (failure) throw failure;
    if (!mime) {
      if (headBytes === 0) throw new UploadError(400, "choose a file to upload");
      await decide();
    }
    if (stream.truncated) throw new UploadError(413, `the file is larger than ${limit} bytes`);
    out.end();
    await once(out, "close");
  } catch (err) {
    if (!out.closed) {
      const closed = once(out, "close").catch(() => {});
      out.destroy();
      await closed;
    }
    throw err;
  }
  const kind = ACCEPTED[mime!].kind;
  return {
    storageKey: "",
    mime: mime!,
    kind,
    bytes,
    sha256: hash.digest("hex"),
    width: null,
    height: null,
    durationSeconds: null,
    frameRate: null,
    videoCodec: null,
    audioCodec: null,
    originalName: filename ? filename.replace(/[\\/]/g, "_").slice(0, 200) : null,
  };
}

/**
 * Refuses media over MEDIA_LIMITS (src/providers/media-limits.ts), naming the limit: images over 8,192
 * pixels a side or 40 megapixels, videos over 4,096 pixels a side or 60 seconds, and for a CTA clip
 * (`cta`: the form's `purpose=cta`) a video outside 3 to 15 seconds. Judged from the measured header, before
 * anything decodes the pixels.
 * @throws UploadError 413 (over a limit) or 415 (a CTA clip that is not a video).
 */
function checkLimits(file: UploadedFile, cta: boolean): void {
  if (file.kind === "image") {
    if (cta) throw new UploadError(415, "a CTA clip must be an MP4 video");
    const problem = imageLimitProblem(file.width ?? 0, file.height ?? 0);
    if (problem) throw new UploadError(413, problem);
    return;
  }
  const problem = videoLimitProblem(file.width, file.height, file.durationSeconds ?? 0, cta);
  if (problem) throw new UploadError(413, problem);
}

/**
 * Fills dimensions/duration in place.
 * @throws UploadError 415 when the file cannot be decoded, 503 when ffprobe is not installed.
 */
async function measure(
  file: UploadedFile,
  path: string,
  ffprobePath: string | undefined,
  maxMemoryBytes: number,
): Promise<void> {
  if (file.kind === "video" && !ffprobePath)
    throw new UploadError(503, `video uploads are unavailable: ${new FfprobeMissingError().message}`);
  try {
    if (file.kind === "image") {
      const d = await imageDimensions(path);
      file.width = d.width;
      file.height = d.height;
    } else {
      const v = await probeVideo(path, { ffprobePath, maxMemoryBytes });
      file.durationSeconds = v.durationSeconds;
      file.width = v.width;
      file.height = v.height;
      file.frameRate = v.frameRate;
      file.videoCodec = v.videoCodec;
      file.audioCodec = v.audioCodec;
    }
  } catch {
    throw new UploadError(415, `the ${file.kind} could not be read`);
  }
}
