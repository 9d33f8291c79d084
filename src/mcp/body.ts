/**
 * The JSON body of an MCP POST (service spec 8: at most 256 KiB). The endpoint parses it as Express's
 * `express.json({ strict: false })` (body-parser) does, and answers the parser's errors the same way
 * (413 `entity.too.large`, 400 `entity.parse.failed`, 415 `charset.unsupported`, ...).
 *
 * The common request (no `Content-Encoding`, a `Content-Length` within the limit, UTF-8 or no charset) is
 * read directly: the chunks are collected and decoded as UTF-8 (a leading byte order mark dropped, as
 * body-parser's decoder does), an empty body is `{}`, anything else goes to `JSON.parse`. Node's HTTP
 * parser ends the body at exactly `Content-Length` bytes. Every other request (compressed, chunked,
 * oversized, another charset) goes through body-parser itself, so the edge cases keep its behaviour.
 * bench/README.md "Where the time goes": body-parser cost about 25 µs per request on the hot path.
 */
import type { Request, Response } from "express";
import express from "express";
import contentType from "content-type";

/** A parser error as body-parser reports it (`type`, HTTP `status`). */
export interface BodyError {
  type: string;
  status: number;
}

/** Reads `req`'s JSON body into `req.body`; resolves with the parser's error, never rejects. */
export type BodyReader = (req: Request, res: Response) => Promise<unknown>;

/** Builds the body reader of the endpoint with a limit of `limitBytes`. */
export function jsonBodyReader(limitBytes: number): BodyReader {
  const fallback = express.json({ limit: limitBytes, type: () => true, strict: false });
  const viaBodyParser = (req: Request, res: Response) =>
    new Promise<unknown>((resolve) => fallback(req, res, (err?: unknown) => resolve(err)));
  return (req, res) => {
    const length = req.headers["content-length"];
    const size = length === undefined ? Number.NaN : Number(length);
    const encoding = req.headers["content-encoding"];
    if (
      !(size >= 0 && size <= limitBytes) ||
      (encoding !== undefined && encoding.toLowerCase() !== "identity") ||
      !utf8Charset(req.headers["content-type"])
    )
      return viaBodyParser(req, res);
    return readUtf8Json(req, size);
  };
}

/** True when the Content-Type names no charset or UTF-8 (the body is then read as UTF-8). */
function utf8Charset(header: string | undefined): boolean {
  if (header === undefined || !header.includes("charset")) return true;
  try {
    const charset = contentType.parse(header).parameters.charset;
    return charset === undefined || charset.toLowerCase() === "utf-8";
  } catch {
    return false;
  }
}

/** The state of a body being read, kept on its request (the listeners below are shared by every request). */
interface Reading {
  chunks: Buffer[];
  size: number;
  resolve: (err?: BodyError) => void;
}

const READING = Symbol("smcp.body");
type ReadingRequest = Request & { [READING]?: Reading | undefined };

/**
 * Collects `size` bytes of `req`, then decodes and parses them into `req.body`. The listeners are module
 * functions called with the request as `this`, so a request costs one state object and no closure.
 */
function readUtf8Json(req: ReadingRequest, size: number): Promise<BodyError | undefined> {
  return new Promise((resolve) => {
    req[READING] = { chunks: [], size, resolve };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

function onData(this: ReadingRequest, chunk: Buffer): void {
  this[READING]?.chunks.push(chunk);
}

function onEnd(this: ReadingRequest): void {
  const reading = this[READING];
  if (!reading) return;
  const { chunks, size } = reading;
  let text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)).toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    this.body = text.length === 0 ? {} : JSON.parse(text);
  } catch {
    finish(this, { type: "entity.parse.failed", status: 400 });
    return;
  }
  finish(this);
}

function onError(this: ReadingRequest): void {
  finish(this, { type: "request.aborted", status: 400 });
}

function onClose(this: ReadingRequest): void {
  if (!this.complete) finish(this, { type: "request.aborted", status: 400 });
}

function finish(req: ReadingRequest, err?: BodyError): void {
  const reading = req[READING];
  if (!reading) return;
  req[READING] = undefined;
  req.off("data", onData);
  req.off("end", onEnd);
  req.off("error", onError);
  req.off("close", onClose);
  reading.resolve(err);
}
