/**
 * Fixtures for the Domain II tool tests: a real app on a fresh database, ToolContexts built as the pipeline
 * builds them (inline and `accept` in a transaction, worker `execute` on the pool), and owned records.
 */
import sharp from "sharp";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Compile } from "typebox/compile";
import { addMember } from "../../../src/domain/account/accounts.ts";
import { grantCredits } from "../../../src/domain/account/credits.ts";
import { connectSandboxAccounts } from "../../../src/domain/social/connect.ts";
import type { Network } from "../../../src/providers/social/types.ts";
import { ToolError } from "../../../src/errors.ts";
import { processCarouselRender } from "../../../src/operations/render.ts";
import { insertOperation } from "../../../src/domain/operations/store.ts";
import { connect } from "../../helpers/tokens.ts";
import type { Knex } from "../../../src/db/knex.ts";
import type { ToolContext, ToolHandler, ToolOutput } from "../../../src/tool-contract.ts";
import { startTestApp, type TestApp } from "../../helpers/app.ts";
import { toolContextFor, type Who } from "../../helpers/tool-context.ts";
import type { Plan } from "../../../src/domain/account/plans.ts";
import type { Providers } from "../../../src/providers/providers.ts";

export type { Who };

/** The app plus three callers: `me`, `peer` (another member of my workspace) and `other` (another workspace). */
export async function setup(plan: Plan = "creator", providers: Partial<Providers> = {}) {
  const app = await startTestApp({ queue: false, providers });
  const me = await app.user({ plan });
  await grantCredits(app.ctx.db, me.user_id, 2000, "test:grant");
  const other = await app.user({ plan });
  const peerUser = await app.user({ plan });
  await addMember(app.ctx.db, me.workspace_id, peerUser.email);
  const peer = { user_id: peerUser.user_id, workspace_id: me.workspace_id, email: peerUser.email };
  return { app, me, other, peer };
}

/**
 * `setup(plan)` plus what the automation tests build on: an owned product of `me` (`productId`) and an owned
 * CTA video of `me` lasting `ctaSeconds` seconds (`cta`).
 */
export async function setupWithProduct(plan: Plan, ctaSeconds: number) {
  const world = await setup(plan);
  const productId = await product(world.app, world.me);
  const cta = await media(world.app, world.me, "video", ctaSeconds);
  return { ...world, productId, cta };
}

/** A ToolContext for `who` over `db` (a transaction for inline/accept, the pool for execute). */
export function toolContext(
  app: TestApp,
  who: Who,
  db: Knex | Knex.Transaction = app.ctx.db,
  operationId?: string,
): ToolContext {
  return toolContextFor(app, who, { db, operationId: operationId ?? randomUUID() });
}

/** The tool name of a handler module's path is not known at runtime: tests name it for schema checks. */
const names = new WeakMap<object, string>();

/** Registers `handler` under its tool name so that every call's input and output are schema-checked. */
export function named<H extends object>(tool: string, handler: H): H {
  names.set(handler, tool);
  return handler;
}

function check(handler: object, part: "input" | "data" | "result", value: unknown): void {
  const tool = names.get(handler);
  if (tool) assertSchema(tool, part, value);
}

/** Runs an inline handler as the pipeline does: in a transaction that commits only on success. */
export async function inline<I, O>(
  app: TestApp,
  who: Who,
  handler: ToolHandler<I, O>,
  input: I,
): Promise<ToolOutput<O>> {
  check(handler, "input", input);
  const out = await app.ctx.db.transaction((trx) => handler.execute(input, toolContext(app, who, trx)));
  check(handler, "data", out.data);
  return out;
}

/**
 * Runs a queued handler: `accept` in a transaction, then `execute` on the pool with the accepted data, then
 * (for a carousel tool, whose `execute` hands its run to the render queue) the render job as a worker runs
 * it. `render` is the render's outcome (`status`: the run's status after it).
 */
export async function queued<I, O, A>(app: TestApp, who: Who, handler: ToolHandler<I, O, A>, input: I) {
  check(handler, "input", input);
  const operationId = randomUUID();
  const accepted = await app.ctx.db.transaction((trx) =>
    handler.accept!(input, toolContext(app, who, trx, operationId)),
  );
  check(handler, "data", accepted.data);
  const result = await handler.execute(input, toolContext(app, who, app.ctx.db, operationId), accepted.data);
  check(handler, "result", result.data);
  const runId = (accepted.data as { run_id?: unknown }).run_id;
  const render = typeof runId === "string" ? await processCarouselRender(app.ctx, runId) : undefined;
  return { accepted, result, render };
}

/** One test connection (grant and client) per caller and app, for the operations `reviewed` records. */
const grants = new WeakMap<TestApp, Map<string, Promise<{ grantId: string; clientId: string }>>>();
function grantOf(app: TestApp, who: Who): Promise<{ grantId: string; clientId: string }> {
  const mine = grants.get(app) ?? new Map<string, Promise<{ grantId: string; clientId: string }>>();
  grants.set(app, mine);
  const k = `${who.user_id}:${who.workspace_id}`;
  if (!mine.has(k)) mine.set(k, connect(app, who, []));
  return mine.get(k)!;
}

/**
 * Runs a review handler as the pipeline and the worker do: `describe` at call time, the request recorded as
 * an operation with its sealed description (what the approval page showed, which `execute` reads back:
 * approved content, an automation's publish facts), then `execute` as the worker after approval
 * (`beforeExecute` runs in between: a change made while the request waited).
 */
export async function reviewed<I, O>(
  app: TestApp,
  who: Who,
  handler: ToolHandler<I, O>,
  input: I,
  options: { beforeExecute?: () => Promise<void> } = {},
) {
  check(handler, "input", input);
  const operationId = randomUUID();
  const description = await handler.describe!(input, toolContext(app, who, app.ctx.db, operationId));
  const { grantId, clientId } = await grantOf(app, who);
  await insertOperation(app.ctx, app.ctx.db, {
    id: operationId,
    grantId,
    userId: who.user_id,
    workspaceId: who.workspace_id,
    clientId,
    tool: names.get(handler) ?? "test_tool",
    toolScope: "read:profile",
    state: "approval_required",
    args: input as Record<string, unknown>,
    description,
    approvalExpiresAt: new Date(Date.now() + 1800_000),
    requestId: randomUUID(),
  });
  await options.beforeExecute?.();
  const result = await handler.execute(input, toolContext(app, who, app.ctx.db, operationId));
  check(handler, "result", result.data);
  return { description, result };
}

/** Awaits `p` and returns the ToolError it rejects with (fails if it resolves or throws something else). */
export async function toolError(p: Promise<unknown>): Promise<ToolError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error("expected a ToolError");
}

/** Inserts an owned product. */
export async function product(app: TestApp, who: Who, fields: Record<string, unknown> = {}): Promise<string> {
  const [row] = await app.ctx
    .db("products")
    .insert({
      workspace_id: who.workspace_id,
      user_id: who.user_id,
      name: "Glow Serum",
      description: "A vitamin C serum for brighter skin. Absorbs in seconds. Fragrance free.",
      brand: "Lumen",
      price_minor: 2900,
      currency: "USD",
      product_url: "https://shop.example.com/glow",
      tags: JSON.stringify(["skincare"]),
      ...fields,
    })
    .returning("id");
  return row.id;
}

/**
 * Inserts an owned media asset record (kind image or video; `duration_seconds` for videos). An image gets
 * real stored bytes: a 900x700 PNG (warm background, a dark bottle shape) drawn with sharp.
 */
export async function media(
  app: TestApp,
  who: Who,
  kind: "image" | "video",
  durationSeconds: number | null = null,
): Promise<string> {
  let storageKey = `test/${randomUUID()}`;
  let bytes = 1000;
  if (kind === "image") {
    const png = await sharp({ create: { width: 900, height: 700, channels: 3, background: "#f2d7b6" } })
      .composite([
        {
          input: Buffer.from(
            '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="700"><rect x="380" y="150" width="140" height="420" rx="30" fill="#5a2e1a"/><circle cx="700" cy="160" r="90" fill="#e85d3f"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    storageKey = app.ctx.providers.storage.newKey("png");
    await app.ctx.providers.storage.putBytes(storageKey, png);
    bytes = png.length;
  }
  const [row] = await app.ctx
    .db("media_assets")
    .insert({
      workspace_id: who.workspace_id,
      user_id: who.user_id,
      kind,
      mime_type: kind === "image" ? "image/png" : "video/mp4",
      bytes,
      width: kind === "image" ? 900 : 1080,
      height: kind === "image" ? 700 : 1080,
      duration_seconds: durationSeconds,
      storage_key: storageKey,
      title: `${kind} asset`,
    })
    .returning("id");
  return row.id;
}

/** Attaches stored CTA artwork (an owned image with role cta_artwork) to a product. */
export async function ctaArtwork(app: TestApp, who: Who, productId: string): Promise<string> {
  const assetId = await media(app, who, "image");
  await app.ctx
    .db("product_assets")
    .insert({ product_id: productId, media_asset_id: assetId, role: "cta_artwork" });
  return assetId;
}

/**
 * Connects a sandbox social account for `who` through the sandbox connector's code exchange (real sealed
 * tokens, to prove they never leak), shown as `name` with handle `@{network}_handle`.
 */
export async function account(
  app: TestApp,
  who: Who,
  network: string,
  name = `My ${network}`,
  status = "connected",
) {
  const [a] = await connectSandboxAccounts(
    app.ctx,
    { userId: who.user_id, workspaceId: who.workspace_id },
    network as Network,
    [name],
  );
  await app.ctx
    .db("social_accounts")
    .where({ id: a!.social_account_id })
    .update({ display_name: name, handle: `@${network}_handle`, status });
  return a!.social_account_id;
}

/** A draft text post of `who`. */
export async function textPost(app: TestApp, who: Who, caption = "Hello from the tests"): Promise<string> {
  const [row] = await app.ctx
    .db("posts")
    .insert({ workspace_id: who.workspace_id, user_id: who.user_id, type: "text", status: "draft", caption })
    .returning("id");
  return row.id;
}

/**
 * A stored JPEG image asset of `who` (real bytes in the media storage, made with sharp), `size` pixels square.
 */
export async function storedImage(app: TestApp, who: Who, size = 64): Promise<string> {
  const sharp = (await import("sharp")).default;
  const bytes = await sharp({
    create: { width: size, height: size, channels: 3, background: { r: 200, g: 80, b: 40 } },
  })
    .jpeg()
    .toBuffer();
  const storage = app.ctx.providers.storage;
  const storageKey = storage.newKey("jpg");
  await storage.putBytes(storageKey, bytes);
  const [row] = await app.ctx
    .db("media_assets")
    .insert({
      workspace_id: who.workspace_id,
      user_id: who.user_id,
      kind: "image",
      mime_type: "image/jpeg",
      bytes: bytes.length,
      width: size,
      height: size,
      storage_key: storageKey,
      title: "stored image",
    })
    .returning("id");
  return row.id;
}

/** A draft image post of `who` with `images` stored JPEG images (an image post, or a carousel from 2). */
export async function imagePost(
  app: TestApp,
  who: Who,
  caption = "Hello from the tests",
  images = 1,
): Promise<string> {
  const ids: string[] = [];
  for (let i = 0; i < images; i++) ids.push(await storedImage(app, who));
  return postWithMedia(app, who, caption, ids);
}

/** A draft image post of `who` with `caption` and the media assets `ids`, in order. */
export async function postWithMedia(app: TestApp, who: Who, caption: string, ids: string[]): Promise<string> {
  const [row] = await app.ctx
    .db("posts")
    .insert({
      workspace_id: who.workspace_id,
      user_id: who.user_id,
      type: "image",
      status: "draft",
      caption,
      media_asset_ids: JSON.stringify(ids),
    })
    .returning("id");
  return row.id;
}

/** The user's credit balance. */
export async function balance(app: TestApp, who: Who): Promise<number> {
  const row = await app.ctx
    .db("credit_ledger")
    .where({ user_id: who.user_id })
    .sum({ total: "delta" })
    .first();
  return Number(row?.total ?? 0);
}

/** Sets the user's balance to exactly `credits`. */
export async function setBalance(app: TestApp, who: Who, credits: number): Promise<void> {
  const now = await balance(app, who);
  if (now !== credits)
    await app.ctx
      .db("credit_ledger")
      .insert({ user_id: who.user_id, delta: credits - now, reason: "test:adjust" });
}

export const key = () => randomUUID();

const catalog = JSON.parse(
  readFileSync(new URL("../../../generated/catalog.json", import.meta.url), "utf8"),
) as {
  tools: Array<{ name: string; input_schema: object; output_schema: object; result_schema?: object }>;
};
const compiled = new Map<string, ReturnType<typeof Compile>>();

/**
 * Asserts that `value` conforms to the catalog schema of `tool`: `input` (arguments), `data` (the envelope's
 * data of an inline or accepted call) or `result` (a queued or review tool's worker result).
 */
export function assertSchema(tool: string, part: "input" | "data" | "result", value: unknown): void {
  const id = `${tool}:${part}`;
  let c = compiled.get(id);
  if (!c) {
    const entry = catalog.tools.find((t) => t.name === tool);
    if (!entry) throw new Error(`no tool ${tool} in the catalog`);
    const schema =
      part === "input" ? entry.input_schema : part === "result" ? entry.result_schema : entry.output_schema;
    if (!schema) throw new Error(`tool ${tool} has no ${part} schema`);
    c = Compile(schema as never);
    compiled.set(id, c);
  }
  const subject = part === "data" ? { request_id: randomUUID(), status: "succeeded", data: value } : value;
  if (!c.Check(subject)) {
    const errors = [...c.Errors(subject)].map((e) => `${e.instancePath} ${e.message}`);
    throw new Error(`${tool} ${part} does not conform to the catalog: ${errors.join("; ")}`);
  }
}
