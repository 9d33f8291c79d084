/**
 * publish_post (review, service spec 1.11, 3.1): `describe` validates at call time (owned post, owned
 * non-TikTok destinations that do not have the post yet, carousel approved) so an invalid or TikTok request
 * never reaches approval, and records the content the page shows; `execute` (worker, after approval)
 * re-validates, checks the post is still what was approved, creates the deliveries bound to it and publishes
 * through the social provider. Deliveries can stay `pending`; follow them with list_deliveries.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { preparePublication, publishPost, reviewUrl } from "../../domain/social/publish.ts";
import { approvedContentOf } from "../../domain/operations/store.ts";
import { ownerOf } from "../../domain/owner.ts";
import { describePublication } from "./describe-publication.ts";

export const handler: ToolHandlers["publish_post"] = {
  async describe(input, ctx) {
    const prepared = await preparePublication(ctx.db, ownerOf(ctx.auth), input, {
      reviewUrl: reviewUrl(ctx.app.config.publicBaseUrl),
    });
    return describePublication(ctx.db, prepared);
  },
  async execute(input, ctx) {
    const approved = await approvedContentOf(ctx.app, ctx.operationId);
    const out = await publishPost(ctx.app, ownerOf(ctx.auth), input, ctx.operationId, ctx.signal, approved);
    return { data: out };
  },
};
