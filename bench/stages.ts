/**
 * The database round trips of one /mcp `get_profile` call, timed one stage at a time through the service's
 * own functions (`BENCH_TARGETS` includes "stages", bench/run.ts): each stage runs `calls` times in a row
 * on one caller (so a call's time is its round trip with no queueing), and reports the wall time, the CPU of
 * this process and of the database's PostgreSQL backends, per call. The audit stage
 * also runs 8 calls finishing together (one batch). See bench/README.md "Where the time goes".
 */
import { randomUUID } from "node:crypto";
import type { Request } from "express";
import { TOOLS } from "../generated/registry.ts";
import type { AppContext } from "../src/context.ts";
import { admit } from "../src/mcp/admission.ts";
import { ipLimiter } from "../src/mcp/guards.ts";
import { authenticateBearer } from "../src/oauth/bearer.ts";
import { writeAudit } from "../src/runtime/audit.ts";
import { createRuntime, prepayableBudget } from "../src/runtime/pipeline.ts";
import type { AuthContext, ToolContext } from "../src/tool-contract.ts";
import { CpuProbe } from "./cpu.ts";

export interface StageRow {
  stage: string;
  /** microseconds per call, wall clock */
  wallUs: number;
  nodeUs: number;
  pgUs: number;
}

/** A request as the endpoint's admission sees it (headers, IP, content type). */
function fakeRequest(token: string): Request {
  return {
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    query: {},
    body: undefined,
    ip: "127.0.0.2",
    is: () => "application/json",
  } as unknown as Request;
}

/** Times every stage on `ctx` for the user of `token` (`calls` sequential calls per stage). */
export async function measureStages(
  ctx: AppContext,
  token: string,
  probe: CpuProbe,
  calls = 2000,
): Promise<StageRow[]> {
  const req = fakeRequest(token);
  const auth: AuthContext = await authenticateBearer(ctx, req);
  const runtime = createRuntime(ctx, TOOLS);
  const ipLimit = ipLimiter(ctx);
  const prepay = async () => prepayableBudget(runtime, "get_profile");
  const profile = runtime.tools.get("get_profile");
  if (!profile) throw new Error("get_profile is not in the registry");
  const tctx: ToolContext = {
    app: ctx,
    auth,
    requestId: randomUUID(),
    operationId: undefined,
    db: ctx.db,
    signal: new AbortController().signal,
    progress: () => {},
  };
  /** An audit row: a read's (`effect: false`, committed asynchronously) or a write's (durable). */
  const audit = (effect: boolean) => () =>
    writeAudit(ctx, {
      requestId: randomUUID(),
      auth,
      tool: "get_profile",
      args: {},
      durationMs: 1,
      envelope: { status: "succeeded" },
      effect,
    });
  const stages: Array<[string, () => Promise<unknown>, number]> = [
    ["token record alone (prepared join, main pool)", () => authenticateBearer(ctx, req), 1],
    ["per-user budget alone (counter upsert)", () => runtime.budgets.read.consume(auth.userId), 1],
    ["admission: IP count + token record + budget, one statement", () => admit(ctx, ipLimit, req, prepay), 1],
    [
      "admission of 8 requests arriving together (one statement), per request",
      () => Promise.all(Array.from({ length: 8 }, () => admit(ctx, ipLimit, req, prepay))),
      8,
    ],
    ["get_profile handler (prepared query)", () => profile.handler.execute({}, tctx), 1],
    [
      "get_profile of 8 calls together (one batched read), per call",
      () => Promise.all(Array.from({ length: 8 }, () => profile.handler.execute({}, tctx))),
      8,
    ],
    ["a write's audit row alone (a batch of one, durable commit)", audit(true), 1],
    ["a read's audit row alone (a batch of one, asynchronous commit)", audit(false), 1],
    [
      "audit rows of 8 reads finishing together (one batch), per row",
      () => Promise.all(Array.from({ length: 8 }, audit(false))),
      8,
    ],
  ];
  const rows: StageRow[] = [];
  for (const [stage, run, perRun] of stages) {
    for (let i = 0; i < 50; i++) await run();
    const runs = Math.ceil(calls / perRun);
    const before = await probe.read();
    const started = performance.now();
    for (let i = 0; i < runs; i++) await run();
    const wallUs = ((performance.now() - started) * 1000) / (runs * perRun);
    const spent = CpuProbe.spent(before, await probe.read(), runs * perRun);
    rows.push({ stage, wallUs, nodeUs: spent.nodeUs, pgUs: spent.pgUs });
  }
  return rows;
}
