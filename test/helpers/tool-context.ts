/**
 * ToolContexts for handler tests, built as the runtime builds them (src/tool-contract.ts `ToolContext`):
 * the caller's identity with every scope, fresh grant, client, token and request ids, the app's pool as
 * `db`, no operation, a signal that never aborts and a progress callback that ignores its reports.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { ToolInputs } from "../../generated/tool-types.ts";
import type { Product } from "../../src/domain/products/products.ts";
import { handler as createProductHandler } from "../../src/tools/products/create_product.ts";
import type { ToolContext } from "../../src/tool-contract.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import type { TestApp } from "./app.ts";

/** A test caller: a user acting in one workspace. */
export interface Who {
  user_id: string;
  workspace_id: string;
  email: string;
}

/**
 * A ToolContext for `who` on `app`; `over` replaces any field (a transaction as `db`, an `operationId`, a
 * signal). Inline handlers get a transaction in production; this default is the pool.
 */
export function toolContextFor(
  app: TestApp,
  who: { user_id: string; workspace_id: string },
  over: Partial<ToolContext> = {},
): ToolContext {
  return {
    app: app.ctx,
    auth: {
      userId: who.user_id,
      workspaceId: who.workspace_id,
      grantId: randomUUID(),
      clientId: randomUUID(),
      scopes: new Set(ALL_SCOPES),
      tokenId: randomUUID(),
    },
    requestId: randomUUID(),
    operationId: undefined,
    db: app.ctx.db,
    signal: new AbortController().signal,
    progress() {},
    ...over,
  };
}

/**
 * create_product with a name, as the pipeline runs it at the call (it finishes there: the call answers
 * `succeeded` with the product). @returns the saved product. @throws the handler's ToolError.
 */
export async function createNamedProduct(
  input: ToolInputs["create_product"] & { name: string },
  ctx: ToolContext,
): Promise<{ data: Product }> {
  const out = await createProductHandler.execute(input, ctx);
  assert.ok(!out.queue && "product_id" in out.data, "create_product with a name finishes at the call");
  return { data: out.data };
}
