/**
 * Test world for the domain tools: an owner A with workspace WA, a second member B of WA, and a
 * user C with another workspace WC; ToolContexts for each, built as the runtime builds them, over the
 * real database of a started test app.
 */
import { randomUUID } from "node:crypto";
import { addMember } from "../../src/domain/account/accounts.ts";
import { createMediaAsset, type MediaKind } from "../../src/domain/media/media.ts";
import type { TestApp } from "../helpers/app.ts";
import { toolContextFor, type Who } from "../helpers/tool-context.ts";

export type { Who };

/** A ToolContext for `who` on the app's pool (inline handlers get a transaction in production). */
export const toolCtx = toolContextFor;

/** Owner A, member B of A's workspace, and C in another workspace. */
export async function world(app: TestApp): Promise<{ a: Who; b: Who; c: Who }> {
  const a = await app.user();
  const b0 = await app.user();
  await addMember(app.ctx.db, a.workspace_id, b0.email);
  const c = await app.user();
  return { a, b: { ...b0, workspace_id: a.workspace_id }, c };
}

/** Records a media asset (no file needed by the tools) and returns its id. */
export async function asset(
  app: TestApp,
  who: { user_id: string; workspace_id: string },
  opts: { kind?: MediaKind; title?: string; labels?: string[] } = {},
): Promise<string> {
  const kind = opts.kind ?? "image";
  const a = await createMediaAsset(
    app.ctx.db,
    { userId: who.user_id, workspaceId: who.workspace_id },
    {
      kind,
      mimeType: kind === "image" ? "image/png" : "video/mp4",
      bytes: 1234,
      width: 64,
      height: 48,
      durationSeconds: kind === "video" ? 5.5 : null,
      labels: opts.labels ?? [],
      title: opts.title ?? null,
      storageKey: `${randomUUID()}.${kind === "image" ? "png" : "mp4"}`,
    },
  );
  return a.asset_id;
}

/** Asserts a promise rejects with ToolError `code`. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  const { rejects } = await import("node:assert/strict");
  await rejects(promise, (err: any) => err?.name === "ToolError" && err.code === code);
}
