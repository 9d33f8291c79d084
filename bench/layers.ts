/**
 * The /mcp hot path built up layer by layer from the service's own parts (`BENCH_TARGETS` includes
 * "layers", bench/run.ts), each served on its own port and driven like the full service: what each layer
 * adds in node CPU per request under load is the difference between consecutive rows. Each layer answers
 * the same constant JSON-RPC result once its last part has run:
 *
 * 1. Express with the endpoint's JSON body parser (`express.json`, 256 KiB, as src/mcp/routes.ts);
 * 2. + the bearer token read in memory (`readBearer`: header form, the remembered ES256 verification, claims);
 * 3. + the admission statement (`admit`: the per-IP count, the token's record and the per-user read budget,
 *    src/mcp/admission.ts), the budget unit given back as a call that stops there would.
 *
 * The full service (the `service` target) adds the JSON-RPC checks, the pipeline, the handler's query,
 * output validation and the audit row. Subtracting rows measured in one run is steadier than a wall-clock
 * CPU profile, whose samples charge the time a thread waits for a core to the function it stopped in.
 * See bench/README.md "Where the time goes".
 */
import http from "node:http";
import express from "express";
import { TOOLS } from "../generated/registry.ts";
import type { AppContext } from "../src/context.ts";
import { admit } from "../src/mcp/admission.ts";
import { ipLimiter } from "../src/mcp/guards.ts";
import { MAX_BODY_BYTES } from "../src/mcp/routes.ts";
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
  type Step = (req: express.Request) => Promise<void>;
  const steps: Array<[string, Step]> = [
    ["layer 1: Express + JSON body", async () => {}],
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
        await a.prepaid?.release();
        if (a.kind !== "admitted") throw new Error(`admission refused: ${a.kind}`);
      },
    ],
  ];
  return steps.map(([name, step]) => {
    const app = express();
    app.set("etag", false);
    app.post(
      path,
      express.json({ limit: MAX_BODY_BYTES, type: () => true, strict: false }),
      (req, res, next) => {
        step(req).then(
          () => res.json({ jsonrpc: "2.0", id: (req.body as { id: number }).id, result: RESULT }),
          next,
        );
      },
    );
    return [name, http.createServer(app)];
  });
}
