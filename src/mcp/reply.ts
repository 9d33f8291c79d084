/**
 * Answers one JSON-RPC request: `application/json`, or, when the client asked for progress
 * (`_meta.progressToken`) and accepts `text/event-stream`, an SSE stream scoped to this request that carries
 * `notifications/progress` and ends with the response (spec basic/transports "Sending messages to the
 * server"). The stream starts lazily, so HTTP errors decided before the handler runs keep their status.
 */
import type { Response } from "express";
import type { JsonRpcId } from "./jsonrpc.ts";

const ABORT = Symbol("smcp.abort");

function abortUnfinished(this: Response & { [ABORT]?: AbortController }): void {
  if (!this.writableFinished) this[ABORT]?.abort();
}

export class Reply {
  private streaming = false;
  private lastProgress = Number.NEGATIVE_INFINITY;
  private readonly res: Response;
  readonly progressToken: string | number | undefined;

  constructor(
    res: Response,
    /** The request's `_meta.progressToken` when the client accepts SSE; undefined otherwise. */
    progressToken: string | number | undefined,
  ) {
    this.res = res;
    this.progressToken = progressToken;
  }

  /** The HTTP request's id (`res.locals.requestId`, set by the access log), when it has one. */
  get requestId(): string | undefined {
    const id = this.res.locals.requestId;
    return typeof id === "string" ? id : undefined;
  }

  /** True once SSE was chosen (the request asked for progress and accepts it). */
  get sse(): boolean {
    return this.progressToken !== undefined;
  }

  /** Sends a `notifications/progress` event; no-op without SSE or after the response ended. Progress must increase. */
  progress(progress: number, total?: number, message?: string): void {
    if (this.progressToken === undefined || this.res.writableEnded || !(progress > this.lastProgress)) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: this.progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.event({ jsonrpc: "2.0", method: "notifications/progress", params });
  }

  /** Sends the final response: on the stream when streaming, else as JSON with `status`. */
  send(
    status: number,
    body: { jsonrpc: "2.0"; id: JsonRpcId | null },
    headers: Record<string, string> = {},
  ): void {
    if (this.res.writableEnded) return;
    if (this.sse && status === 200) {
      this.event(body);
      this.res.end();
      return;
    }
    if (this.streaming) {
      // The status line is gone; deliver the error on the stream.
      this.event(body);
      this.res.end();
      return;
    }
    // What Express's `res.status(status).set(headers).json(body)` sends (no ETag: the app disables it),
    // without its per-call header lookups.
    const json = JSON.stringify(body);
    this.res.writeHead(status, {
      ...headers,
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(json),
    });
    this.res.end(json);
  }

  /**
   * A signal aborted when the client disconnects before the response ended (cancellation). One listener
   * function for every response (the controller is kept on the response), so a call allocates no closure.
   */
  abortSignal(): AbortSignal {
    const res = this.res as Response & { [ABORT]?: AbortController };
    const controller = new AbortController();
    res[ABORT] = controller;
    res.once("close", abortUnfinished);
    return controller.signal;
  }

  /** An HTTP-level refusal (403 scope challenge) with an OAuth-style JSON body. */
  refuse(status: number, wwwAuthenticate: string, body: { error: string; error_description: string }): void {
    if (this.res.headersSent) return;
    this.res.status(status).set("WWW-Authenticate", wwwAuthenticate).json(body);
  }

  private event(message: unknown): void {
    if (!this.streaming) {
      this.streaming = true;
      this.res.status(200).set({
        "Content-Type": "text/event-stream",
        "Cache-Control": "no-cache, no-transform",
        "X-Accel-Buffering": "no",
      });
      this.res.flushHeaders();
    }
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
}
