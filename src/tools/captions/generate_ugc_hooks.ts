/** generate_ugc_hooks: short on-screen hook lines for UGC videos (<= 80 characters). Free; nothing saved. */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { generateUgcHooks } from "../../domain/captions/captions.ts";
import { ownerOf } from "../../domain/owner.ts";
import { TEXT_GENERATION_PRICE } from "../../domain/account/prices.ts";
import { ToolError } from "../../errors.ts";

export const handler: ToolHandlers["generate_ugc_hooks"] = {
  async execute(input, ctx) {
    if (!input.product_id && !input.brief)
      throw new ToolError("validation_failed", "give product_id or brief");
    const hooks = await generateUgcHooks(
      ctx.db,
      ownerOf(ctx.auth),
      ctx.app.providers.text,
      { ...input, count: input.count ?? 5, tone: input.tone ?? "bold" },
      ctx.signal,
    );
    return { data: { hooks: hooks.map((text) => ({ text })) }, credits_charged: TEXT_GENERATION_PRICE };
  },
};
