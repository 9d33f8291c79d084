/**
 * The /mcp JSON body (src/mcp/body.ts): the common request is read directly, everything else by
 * body-parser, and both give what `express.json({ strict: false })` gives: the parsed body (an empty body
 * is `{}`, a leading byte order mark is dropped) or the parser's error type and status.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { gzipSync } from "node:zlib";
import express, { type Request, type Response } from "express";
import { jsonBodyReader } from "../../src/mcp/body.ts";

const LIMIT = 1024;
const read = jsonBodyReader(LIMIT);
const app = express();
// Answers what the reader produced: {body} or {error: {type, status}}.
const server = http.createServer((req, res) => {
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  const request = req as Request;
  read(request, res as Response).then((err) => {
    const e = err as { type?: string; status?: number } | undefined;
    const out = e ? { error: { type: e.type, status: e.status } } : { body: request.body };
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(out));
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as AddressInfo).port;
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends `body` with `headers` (no Content-Length when `chunked`) and returns what the reader produced. */
function send(
  body: Buffer | string,
  headers: Record<string, string> = {},
  chunked = false,
): Promise<{ body?: unknown; error?: { type: string; status: number } }> {
  return new Promise((resolve, reject) => {
    const bytes = typeof body === "string" ? Buffer.from(body) : body;
    const req = http.request(
      {
        port,
        method: "POST",
        path: "/mcp",
        headers: {
          "content-type": "application/json",
          ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(bytes.length) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
      },
    );
    req.on("error", reject);
    if (chunked) {
      // Two writes, so that the body arrives in more than one chunk.
      req.write(bytes.subarray(0, 3));
      req.end(bytes.subarray(3));
    } else req.end(bytes);
  });
}

const MESSAGE = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { note: "é ✓" } };

test("a JSON body with a Content-Length is parsed, UTF-8 with or without the charset", async () => {
  assert.deepEqual((await send(JSON.stringify(MESSAGE))).body, MESSAGE);
  const utf8 = await send(JSON.stringify(MESSAGE), { "content-type": "application/json; charset=UTF-8" });
  assert.deepEqual(utf8.body, MESSAGE);
});

test("a leading byte order mark is dropped and an empty body is {}", async () => {
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(MESSAGE))]);
  assert.deepEqual((await send(bom)).body, MESSAGE);
  assert.deepEqual((await send("")).body, {});
});

test("any JSON value is accepted (not only objects), as with strict: false", async () => {
  assert.deepEqual((await send("[1,2]")).body, [1, 2]);
  assert.equal((await send('"text"')).body, "text");
});

test("unparsable JSON is entity.parse.failed (400)", async () => {
  assert.deepEqual((await send("{not json")).error, { type: "entity.parse.failed", status: 400 });
});

test("a body over the limit is entity.too.large (413), with or without a Content-Length", async () => {
  const big = JSON.stringify({ pad: "x".repeat(LIMIT) });
  assert.deepEqual((await send(big)).error, { type: "entity.too.large", status: 413 });
  assert.deepEqual((await send(big, {}, true)).error, { type: "entity.too.large", status: 413 });
});

test("chunked and gzip-encoded bodies are parsed by body-parser", async () => {
  assert.deepEqual((await send(JSON.stringify(MESSAGE), {}, true)).body, MESSAGE);
  const gz = gzipSync(Buffer.from(JSON.stringify(MESSAGE)));
  assert.deepEqual((await send(gz, { "content-encoding": "gzip" })).body, MESSAGE);
});

test("a charset other than UTF-8 is refused as body-parser refuses it", async () => {
  const latin1 = await send(JSON.stringify(MESSAGE), { "content-type": "application/json; charset=latin1" });
  assert.deepEqual(latin1.error, { type: "charset.unsupported", status: 415 });
});
