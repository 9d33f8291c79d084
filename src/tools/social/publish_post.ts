/**
 * publish_post (review, service spec 1.11, 3.1): `describe` validates at call time (owned post, owned
 * non-TikTok destinations, carousel approved) so an invalid or TikTok request never reaches approval;
 * `execute` (worker, after approval) re-validates, creates the deliveries and publishes through the social
 * provider. Deliveries can stay `pending`; follow them with list_deliveries.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { preparePublication, publishPost, reviewUrl } from "../../domain/social/publish.ts";
import { ownerOf } from "../../domain/owner.ts";
import { describePublication } from "./describe-publication.ts";

export const handler: ToolHandlers["publish_post"] = {
  async describe(input, ctx) {
    return describePublication(
      await preparePublication(ctx.db, ownerOf(ctx.auth), input, {
        reviewUrl: reviewUrl(ctx.app.config.publicBaseUrl),
      }),
    );
  },
  async execute(input, ctx) {
    const out = await publishPost(ctx.app, ownerOf(ctx.auth), input, ctx.operationId, ctx.signal);
    return { data: out };
  },
};
