/**
 * generate_captions: caption, hook and hashtag variations from an owned post, an owned product and/or a
 * brief, through the configured AI text provider. Free (`credits_charged: 0`); nothing is saved.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { generateCaptions } from "../../domain/captions/captions.ts";
import { ownerOf } from "../../domain/owner.ts";
import { TEXT_GENERATION_PRICE } from "../../domain/account/prices.ts";
import { ToolError } from "../../errors.ts";

export const handler: ToolHandlers["generate_captions"] = {
  async execute(input, ctx) {
    if (!input.post_id && !input.product_id && !input.brief) {
      throw new ToolError("validation_failed", "give at least one of post_id, product_id or brief");
    }
    const variations = await generateCaptions(
      ctx.db,
      ownerOf(ctx.auth),
      ctx.app.providers.text,
      {
        ...input,
        count: input.count ?? 3,
        tone: input.tone ?? "friendly",
        include_hashtags: input.include_hashtags ?? true,
      },
      ctx.signal,
    );
    return { data: { variations }, credits_charged: TEXT_GENERATION_PRICE };
  },
};
