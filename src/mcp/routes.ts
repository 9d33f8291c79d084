/**
 * The MCP endpoint, `POST {resource path}` (service spec 4.1, 7, 8, 9; docs/spec/mcp-protocol.md).
 * Fixed order per request:
 *   MCP disabled or wrong Host -> 404; Origin not allow-listed -> 403 (CORS only for allow-listed origins);
 *   not POST -> 405 `Allow: POST`; per-IP budget -> 429 `Retry-After`; not JSON -> 415; bearer token -> 401
 *   (the per-IP count and the token's record are read in one statement, admission.ts; the answer keeps
 *   this order);
 *   body > 256 KiB -> 413; unparsable JSON -> 400 / -32700; not one JSON-RPC message -> 400 / -32600;
 *   notification -> 202; revision checks (revision.ts); 2026-07-28 request whose Accept does not allow both
 *   application/json and text/event-stream -> 406 / -32600; dispatch (dispatch.ts).
 * Everything (validators, limiters, parsers, the tool list) is built once here, never per request.
 */
import { mcpEnabledNow } from "../domain/service/mcp-switch.ts";
import { SPEC_LIMITS } from "../config/index.ts";
import { type Request, type Response, Router } from "express";
import type { AppContext } from "../context.ts";
import { BearerError } from "../oauth/bearer.ts";
import { challenge401 } from "../oauth/challenge.ts";
import { hostMatches } from "../oauth/host.ts";
import { createRuntime, type PrepaidBudget, prepayableBudget } from "../runtime/pipeline.ts";
import type { AuthContext, RegisteredTool } from "../tool-contract.ts";
import { TOOLS } from "../../generated/registry.ts";
import { createCursorCodec } from "./cursor.ts";
import { dispatch, type Endpoint } from "./dispatch.ts";
import { type Admission, admit } from "./admission.ts";
import { countRateLimited } from "../observability/metrics.ts";
import { startSpan, tracer } from "../observability/tracing.ts";
import { type BodyReader, jsonBodyReader } from "./body.ts";
import { type IpLimiter, ipLimiter, originGuard } from "./guards.ts";
import { errorResponse, isObject, type JsonRpcId, parseMessage, RPC, RpcError } from "./jsonrpc.ts";
import { Reply } from "./reply.ts";
import { resolveRevision } from "./revision.ts";
import { createToolLister } from "./tools-list.ts";
import { clientFeatures, createViewSessions } from "./apps/client.ts";
import { createResourceCatalog } from "./apps/resources.ts";

/** Protocol body size limit (service spec 8): 256 KiB. */
export const MAX_BODY_BYTES = SPEC_LIMITS.protocolBodyBytes;

export interface McpRouteOptions {
  /** The tool catalog (default: the generated registry). Tests inject small fixtures. */
  tools?: readonly RegisteredTool[];
}

/** The MCP endpoint: its Express router, and the same endpoint's POST for the server's fast lane. */
export interface McpEndpoint {
  /** The endpoint's path (the path of the configured resource URL, e.g. "/mcp"). */
  path: string;
  /** Every request on the path (the Host and Origin guards, 405, then `post`). */
  router: Router;
  /**
   * Serves a POST on exactly `path` that carries no `Origin` header (a native client: no CORS to apply),
   * on a request and response that already have Express's prototypes (src/app.ts `withFastLane`): the
   * MCP enabled flag and the Host check (404), then the request as the router serves it. Rejects with the
   * error the router would pass to the app's error handler.
   */
  postWithoutOrigin(req: Request, res: Response): Promise<void>;
}

/** Builds the MCP endpoint of `ctx`. */
export function mcpEndpoint(ctx: AppContext, options: McpRouteOptions = {}): McpEndpoint {
  const router = Router();
  const path = new URL(ctx.config.resourceUrl).pathname;
  const tools = options.tools ?? TOOLS;
  const ep: Endpoint = {
    ctx,
    runtime: createRuntime(ctx, tools),
    lister: createToolLister(
      tools,
      ctx.config.limits.toolsPageSize,
      createCursorCodec(ctx.keys.encryptionKeys[0]!),
    ),
    resources: createResourceCatalog(tools, ctx.config.publicBaseUrl),
    viewSessions: createViewSessions(ctx.keys.encryptionKeys[0]!),
  };
  const readBody = jsonBodyReader(MAX_BODY_BYTES);
  const ipLimit = ipLimiter(ctx);
  // `hostMatches` verdicts by Host value (clients send the same one every time).
  const hostVerdicts = new Map<string, boolean>();
  /** Answers 404 when the endpoint is off or the Host is foreign; true when the request goes on. */
  const enabledForHost = (req: Request, res: Response): boolean => {
    if (mcpEnabledNow(ctx) && remembered(hostVerdicts, req.host ?? "", () => hostMatches(ctx, req)))
      return true;
    res.status(404).type("text/plain").send("Not found");
    return false;
  };

  router.use(path, (req, res, next) => {
    if (req.path !== "/") return next();
    if (enabledForHost(req, res)) next();
  });
  const origin = originGuard(ctx);
  router.use(path, (req, res, next) => (req.path === "/" ? origin(req, res, next) : next()));
  router.all(path, (req, res, next) => {
    if (req.method === "POST") return next();
    res.status(405).set("Allow", "POST").type("text/plain").send("Method not allowed");
  });
  router.post(path, (req, res, next) => {
    serve(ep, ipLimit, readBody, req, res).catch(next);
  });
  return {
    path,
    router,
    async postWithoutOrigin(req, res) {
      if (enabledForHost(req, res)) await serve(ep, ipLimit, readBody, req, res);
    },
  };
}

/**
 * One POST: admission (per-IP limit 429, Content-Type 415, bearer token 401; one statement, admission.ts),
 * the body (413, 400 / -32700), then the JSON-RPC message (`handle`). When the token verifies in memory the
 * body is read before the admission statement, so that a tools/call's budget is consumed in it
 * (`prepayableBudget`); the answers keep the order above all the same. A budget unit the call did not use
 * is given back before the answer (here, in `handle`, or by the pipeline).
 */
async function serve(
  ep: Endpoint,
  ipLimit: IpLimiter,
  readBody: BodyReader,
  req: Request,
  res: Response,
): Promise<void> {
  let bodyError: unknown;
  let bodyRead = false;
  // The `authenticate` stage of the call's trace while tracing is on (src/observability/tracing.ts).
  const authenticating = tracer ? startSpan("authenticate") : undefined;
  let admission: Admission;
  try {
    admission = await admit(ep.ctx, ipLimit, req, async () => {
      bodyError = await readBody(req, res);
      bodyRead = true;
      if (bodyError || !isObject(req.body) || req.body.method !== "tools/call") return undefined;
      const params = req.body.params;
      return prepayableBudget(ep.runtime, isObject(params) ? params.name : undefined);
    });
  } finally {
    authenticating?.end();
  }
  try {
    if (admission.kind === "ip_limited") {
      countRateLimited("mcp_ip");
      res.setHeader("Retry-After", String(admission.retryAfter));
      res.status(429).type("text/plain").send("Too many requests");
      return;
    }
    if (admission.kind === "not_json") {
      res.status(415).type("text/plain").send("Content-Type must be application/json");
      return;
    }
    if (admission.kind === "refused") {
      const err = admission.error;
      if (!(err instanceof BearerError)) throw err;
      await admission.prepaid?.release();
      res
        .status(401)
        .set("WWW-Authenticate", challenge401(ep.ctx, err.tokenPresented))
        .json({
          error: err.tokenPresented ? "invalid_token" : "unauthorized",
          error_description: "A valid bearer token is required",
        });
      return;
    }
    if (!bodyRead) bodyError = await readBody(req, res);
    if (bodyError) {
      const e = bodyError as { type?: string };
      if (e.type === "entity.too.large") {
        res.status(413).type("text/plain").send(`Request body exceeds ${MAX_BODY_BYTES} bytes`);
        return;
      }
      if (e.type === "entity.parse.failed") {
        res.status(400).json(errorResponse(null, RPC.parseError, "Parse error"));
        return;
      }
      throw bodyError;
    }
    await handle(ep, req, res, admission.auth, admission.prepaid);
  } finally {
    // Every answer above gives an unused unit back before it is sent; this covers a thrown error.
    await admission.prepaid?.release();
  }
}

/** Entries of a verdict map (Host, Accept); cleared when full. */
const MAX_REMEMBERED = 256;

/**
 * The verdict `judge` gives for a header value, remembered in `verdicts` by that value (a client sends the
 * same one every time); at most MAX_REMEMBERED values, the map is cleared when full.
 */
function remembered(verdicts: Map<string, boolean>, value: string, judge: () => boolean): boolean {
  let verdict = verdicts.get(value);
  if (verdict === undefined) {
    verdict = judge();
    if (verdicts.size >= MAX_REMEMBERED) verdicts.clear();
    verdicts.set(value, verdict);
  }
  return verdict;
}

/** `acceptsBoth` verdicts by Accept header value (a client sends the same one every time); bounded. */
const acceptVerdicts = new Map<string, boolean>();

/**
 * 2026-07-28 transport rule (basic/transports/streamable-http "Sending Messages" 2): the client MUST send an
 * `Accept` header listing both `application/json` and `text/event-stream`. Judged with HTTP content
 * negotiation (RFC 9110 12.5.1: wildcards count, `q=0` excludes); a missing header does not list them.
 * Legacy revisions keep serving such requests (JSON answers), as before. The verdict depends on the header
 * alone and is remembered per header value (negotiation parses the header on every call).
 */
function acceptsBoth(req: Request): boolean {
  const accept = req.headers.accept;
  if (!accept) return false;
  return remembered(
    acceptVerdicts,
    accept,
    () => Boolean(req.accepts("application/json")) && Boolean(req.accepts("text/event-stream")),
  );
}

const idOf = (body: unknown): JsonRpcId | null => {
  const id = isObject(body) ? body.id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
};

async function handle(
  ep: Endpoint,
  req: Request,
  res: Response,
  auth: AuthContext,
  prepaid: PrepaidBudget | undefined,
): Promise<void> {
  const body: unknown = req.body;
  let reply: Reply | undefined;
  try {
    const msg = parseMessage(body);
    if (msg.id === undefined) {
      await prepaid?.release();
      res.status(202).end();
      return;
    }
    const revision = resolveRevision(req.headers, msg);
    if (revision.kind === "current" && !acceptsBoth(req))
      throw new RpcError(
        RPC.invalidRequest,
        "Not Acceptable: the Accept header must allow both application/json and text/event-stream",
        406,
      );
    const meta = msg.params?._meta;
    const token = isObject(meta) ? meta.progressToken : undefined;
    const wantsSse =
      msg.method === "tools/call" &&
      (typeof token === "string" || typeof token === "number") &&
      (req.headers.accept ?? "").includes("text/event-stream");
    reply = new Reply(res, wantsSse ? (token as string | number) : undefined);
    const client = clientFeatures(revision, msg.params, req.headers, ep.viewSessions);
    await dispatch(ep, msg as typeof msg & { id: JsonRpcId }, revision, auth, reply, prepaid, client);
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    await prepaid?.release();
    const response = errorResponse(idOf(body), err.code, err.message, err.data);
    if (reply) reply.send(err.status, response, err.headers);
    else
      res
        .status(err.status)
        .set(err.headers ?? {})
        .json(response);
  }
}
