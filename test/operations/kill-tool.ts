/** The in-test tool of worker.kill.test.ts (shared by the test and its child worker process). */
import { makeTool } from "./helpers.ts";

export const blockForever = makeTool({
  name: "block_forever",
  scope: "create:products",
  queued: true,
  handler: {
    async accept() {
      return { data: {} };
    },
    async execute(_input, ctx) {
      await ctx.db("products").insert({
        user_id: ctx.auth.userId,
        workspace_id: ctx.auth.workspaceId,
        name: `started ${ctx.operationId}`,
      });
      console.log(`handler started ${ctx.operationId}`);
      await new Promise(() => {});
      return { data: {} };
    },
  },
});
