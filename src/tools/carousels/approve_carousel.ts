/**
 * approve_carousel (review, service spec 3.1): `describe` checks at call time that the carousel is the
 * caller's and fully generated, and shows every slide, the caption and what the owner's connected networks
 * would refuse of it (validate.ts `connectedAccountProblems`) on the approval page; it records the content the page shows and its
 * fingerprint (a later change to the post makes the request stale). `execute` (worker, after the owner
 * approved in the browser) checks the post is still what was approved and moves it to `approved`.
 * A new caption is refused while the post has a pending schedule or unpublished delivery (approved content
 * is locked, src/domain/social/content.ts).
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { approveCarousel, assertApprovable } from "../../domain/carousels/read.ts";
import { approvedContentOf } from "../../domain/operations/store.ts";
import { ownerOf } from "../../domain/owner.ts";
import {
  approvedContent,
  assertApprovedContent,
  assertContentUnlocked,
  contentFingerprint,
} from "../../domain/social/content.ts";
import { postLabel } from "../../domain/social/publish.ts";
import { approvalWarnings, connectedAccountProblems } from "../../domain/social/validate.ts";
import type { Knex } from "../../db/knex.ts";

/** The caption the call asks for, when it differs from the post's (a `caption` argument, when the tool has one). */
async function newCaption(db: Knex, input: object, postId: string): Promise<string | undefined> {
  const asked = "caption" in input && typeof input.caption === "string" ? input.caption : undefined;
  if (asked === undefined) return undefined;
  const post = await db("posts").where({ id: postId }).first("caption");
  return post?.caption === asked ? undefined : asked;
}

export const handler: ToolHandlers["approve_carousel"] = {
  async describe(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const view = await assertApprovable(ctx.db, owner, input.post_id);
    if ((await newCaption(ctx.db, input, input.post_id)) !== undefined)
      await assertContentUnlocked(ctx.db, input.post_id, "approve_carousel cannot change the caption now");
    const post = await ctx
      .db("posts")
      .where({ id: input.post_id })
      .first("type", "caption", "title", "media_asset_ids", "updated_at");
    const slides: Array<{ position: number; headline: string | null; image_asset_id: string }> = await ctx
      .db("carousel_slides")
      .where({ post_id: input.post_id })
      .whereNotNull("image_asset_id")
      .orderBy("position")
      .select("position", "headline", "image_asset_id");
    const content = await approvedContent(ctx.db, input.post_id, []);
    return {
      summary: `Approve the ${view.slide_count}-slide carousel “${postLabel(post)}” so it can be published or scheduled.`,
      resources: [{ kind: "post", id: input.post_id, label: postLabel(post) }],
      destinations: [],
      images: slides.map((s) => ({
        asset_id: s.image_asset_id,
        label: `Slide ${s.position}/${view.slide_count}${s.headline ? `: ${s.headline}` : ""}`,
      })),
      text: post.caption ?? undefined,
      versions: [{ table: "posts", id: input.post_id, updated_at: new Date(post.updated_at).toISOString() }],
      content,
      fingerprint: contentFingerprint(content),
      credits: 0,
      warnings: approvalWarnings(
        await connectedAccountProblems(ctx.db, owner, { ...post, id: input.post_id }),
      ),
    };
  },
  async execute(input, ctx) {
    await assertApprovable(ctx.db, ownerOf(ctx.auth), input.post_id);
    const approved = await approvedContentOf(ctx.app, ctx.operationId);
    if (approved) assertApprovedContent(approved, await approvedContent(ctx.db, input.post_id, []));
    if ((await newCaption(ctx.db, input, input.post_id)) !== undefined)
      await assertContentUnlocked(ctx.db, input.post_id, "approve_carousel cannot change the caption now");
    const out = await approveCarousel(ctx.db, ownerOf(ctx.auth), input.post_id, ctx.app.clock.now());
    return {
      data: { post_id: out.post_id, status: out.status },
    };
  },
};
