/**
 * The /mcp hot path built up layer by layer from the service's own parts (`BENCH_TARGETS` includes
 * "layers", bench/run.ts), each served on its own port and driven like the full service: what each layer
 * adds in node CPU per request under load is the difference between consecutive rows. Each layer answers
 * the same constant JSON-RPC result once its last part has run:
 *
 * 1. node:http with the endpoint's fast lane (src/app.ts `withFastLane`: Express's request and response
 *    prototypes, the access log) and its JSON body reader (src/mcp/body.ts);
 * 2. + the bearer token read in memory (`readBearer`: header form, the remembered ES256 verification, claims);
 * 3. + the admission statement (`admit`: the per-IP count, the token's record and the per-user read budget,
 *    src/mcp/admission.ts, batched with the concurrent requests), its budget unit counted as used (as by
 *    a call that reaches its budget step).
 *
 * The full service (the `service` target) adds the JSON-RPC checks, the pipeline, the handler's query,
 * output validation and the audit row. Subtracting rows measured in one run is steadier than a wall-clock
 * CPU profile, whose samples charge the time a thread waits for a core to the function it stopped in.
 * See bench/README.md "Where the time goes".
 */
import http from "node:http";
import express, { type Request, type Response } from "express";
import { TOOLS } from "../generated/registry.ts";
import { withFastLane } from "../src/app.ts";
import type { AppContext } from "../src/context.ts";
import { admit } from "../src/mcp/admission.ts";
import { jsonBodyReader } from "../src/mcp/body.ts";
import { ipLimiter } from "../src/mcp/guards.ts";
import { MAX_BODY_BYTES, type McpEndpoint } from "../src/mcp/routes.ts";
import { readBearer } from "../src/oauth/bearer.ts";
import { createRuntime, prepayableBudget } from "../src/runtime/pipeline.ts";

const RESULT = {
  resultType: "complete",
  content: [{ type: "text", text: '{"status":"succeeded"}' }],
  structuredContent: { status: "succeeded" },
};

/** The layers' servers (not listening), in build-up order, with the row name of each. */
export function layerServers(ctx: AppContext, path: string): Array<[string, http.Server]> {
  const runtime = createRuntime(ctx, TOOLS);
  const ipLimit = ipLimiter(ctx);
  const readBody = jsonBodyReader(MAX_BODY_BYTES);
  type Step = (req: Request) => Promise<void>;
  const steps: Array<[string, Step]> = [
    ["layer 1: node:http, fast lane, JSON body", async () => {}],
    [
      "layer 2: + bearer token in memory",
      async (req) => {
        await readBearer(ctx, req);
      },
    ],
    [
      "layer 3: + admission statement",
      async (req) => {
        const body = req.body as { params?: { name?: unknown } };
        const a = await admit(ctx, ipLimit, req, async () => prepayableBudget(runtime, body.params?.name));
        if (a.prepaid) a.prepaid.used = true;
        if (a.kind !== "admitted") throw new Error(`admission refused: ${a.kind}`);
      },
    ],
  ];
  return steps.map(([name, step]) => {
    const app = express();
    app.set("etag", false);
    const endpoint: McpEndpoint = {
      path,
      router: express.Router(),
      async postWithoutOrigin(req: Request, res: Response) {
        const err = await readBody(req, res);
        if (err) throw err;
        await step(req);
        res.json({ jsonrpc: "2.0", id: (req.body as { id: number }).id, result: RESULT });
      },
    };
    return [name, http.createServer(withFastLane(ctx, app, endpoint))];
  });
}
