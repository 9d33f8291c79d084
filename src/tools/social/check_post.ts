/**
 * check_post (read, DESIGN.md section 4): whether a post can go to each of the given accounts and why not,
 * creating nothing (src/domain/social/check.ts). Messages name pages with absolute URLs.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { absoluteUrls } from "../../errors.ts";
import { ownerOf } from "../../domain/owner.ts";
import { checkPost } from "../../domain/social/check.ts";

export const handler: ToolHandlers["check_post"] = {
  async execute(input, ctx) {
    const c = await checkPost(
      ctx.db,
      ownerOf(ctx.auth),
      input.post_id,
      input.social_account_ids,
      input.first_comment,
    );
    const base = ctx.app.config.publicBaseUrl;
    return {
      data: {
        ...c,
        destinations: c.destinations.map((d) => ({
          ...d,
          problems: d.problems.map((p) => ({ rule: p.rule, message: absoluteUrls(p.message, base) })),
        })),
      },
    };
  },
};
