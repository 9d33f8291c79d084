/**
 * In-test tools shared by the operations tests: a review tool over products (`describe` checks ownership
 * and labels the product by name; `execute` deletes it) and counters of handler runs.
 */
import { ToolError } from "../../src/errors.ts";
import { handler as getJobStatus } from "../../src/tools/account/get_job_status.ts";
import { makeTool } from "./helpers.ts";

export const runs = { remove_widget: 0 };

/** Review tool: delete one owned product after approval (the effect is the row's `deleted_at`). */
export const removeWidget = makeTool({
  name: "remove_widget",
  scope: "delete:products",
  review: true,
  properties: { product_id: { type: "string", format: "uuid" } },
  required: ["product_id"],
  handler: {
    async describe(input, ctx) {
      const p = await ctx
        .db("products")
        .where({ id: input.product_id, user_id: ctx.auth.userId, workspace_id: ctx.auth.workspaceId })
        .whereNull("deleted_at")
        .first("id", "name");
      if (!p) throw new ToolError("not_found", "product not found");
      return {
        summary: `Delete the product “${p.name}”`,
        resources: [{ kind: "product", id: p.id, label: p.name }],
        destinations: [{ name: "Shop <Main>", network: "instagram" }],
      };
    },
    async execute(input, ctx) {
      runs.remove_widget += 1;
      const n = await ctx
        .db("products")
        .where({ id: input.product_id, user_id: ctx.auth.userId, workspace_id: ctx.auth.workspaceId })
        .whereNull("deleted_at")
        .update({ deleted_at: new Date() });
      if (n === 0) throw new ToolError("not_found", "product not found");
      return { data: { product_id: input.product_id, deleted: true } };
    },
  },
});

/** get_job_status with its real handler, as a read tool. */
export const jobStatusTool = makeTool({
  name: "get_job_status",
  scope: "read:jobs",
  access: "read",
  properties: { operation_id: { type: "string", format: "uuid" } },
  required: ["operation_id"],
  handler: getJobStatus,
});
