/**
 * approve_carousel (review, service spec 3.1): `describe` checks at call time that the carousel is the
 * caller's and fully generated, and shows every slide, the caption and what the owner's connected networks
 * would refuse of it (validate.ts `connectedAccountProblems`) on the approval page; it records the content the page shows and its
 * fingerprint (a later change to the post makes the request stale). `execute` (worker, after the owner
 * approved in the browser) checks the post is still what was approved and moves it to `approved`.
 * An optional `caption` (checked by assertCaptionArgument) replaces the post's caption: the page shows it and
 * the fingerprint binds it, and `execute` stores it with the approval. A new caption is refused while the
 * post has a pending schedule or unpublished delivery (approved content is locked,
 * src/domain/social/content.ts).
 */
import { madeByParts } from "../../domain/content/made-by.ts";
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
import { assertCaptionArgument } from "../../domain/captions/post-caption.ts";
import type { ApprovedContent } from "../../tool-contract.ts";

/**
 * The caption the call asks for, when it differs from the post's, after checking it.
 * @throws ToolError validation_failed (assertCaptionArgument); validation_failed when it would change the
 * caption of a post whose approved content is locked (assertContentUnlocked).
 */
async function newCaption(
  db: Knex,
  input: { caption?: string | undefined },
  postId: string,
): Promise<string | undefined> {
  const asked = input.caption;
  if (asked === undefined) return undefined;
  assertCaptionArgument(asked);
  const post = await db("posts").where({ id: postId }).first("caption");
  if (post?.caption === asked) return undefined;
  await assertContentUnlocked(db, postId, "approve_carousel cannot change the caption now");
  return asked;
}

/** `content` with the caption being approved. */
function withCaption(content: ApprovedContent, caption: string | undefined): ApprovedContent {
  return caption === undefined ? content : { ...content, caption };
}

export const handler: ToolHandlers["approve_carousel"] = {
  async describe(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const view = await assertApprovable(ctx.db, owner, input.post_id);
    const caption = await newCaption(ctx.db, input, input.post_id);
    const post = await ctx
      .db("posts")
      .where({ id: input.post_id })
      .first("type", "caption", "title", "media_asset_ids", "updated_at", "caption_provider");
    const slides: Array<{ position: number; headline: string | null; image_asset_id: string }> = await ctx
      .db("carousel_slides")
      .where({ post_id: input.post_id })
      .whereNotNull("image_asset_id")
      .orderBy("position")
      .select("position", "headline", "image_asset_id");
    const content = withCaption(await approvedContent(ctx.db, input.post_id, []), caption);
    // Named by its title (the product's name) when it has one: the caption is shown in full below.
    const label = postLabel(post.title ? { ...post, caption: null } : post);
    return {
      summary: `Approve the ${view.slide_count}-slide carousel “${label}” so it can be published or scheduled.`,
      resources: [{ kind: "post", id: input.post_id, label }],
      destinations: [],
      images: slides.map((s) => ({
        asset_id: s.image_asset_id,
        label: `Slide ${s.position}/${view.slide_count}${s.headline ? `: ${s.headline}` : ""}`,
      })),
      text: content.caption ?? undefined,
      versions: [{ table: "posts", id: input.post_id, updated_at: new Date(post.updated_at).toISOString() }],
      content,
      fingerprint: contentFingerprint(content),
      credits: 0,
      // A caption passed here is the agent's: only the stored one can have been generated.
      made_by: await madeByParts(ctx.db, { ...post, id: input.post_id }, caption === undefined),
      warnings: approvalWarnings(
        await connectedAccountProblems(ctx.db, owner, {
          ...post,
          caption: content.caption,
          id: input.post_id,
        }),
      ),
    };
  },
  async execute(input, ctx) {
    await assertApprovable(ctx.db, ownerOf(ctx.auth), input.post_id);
    const caption = await newCaption(ctx.db, input, input.post_id);
    const approved = await approvedContentOf(ctx.app, ctx.operationId);
    if (approved)
      assertApprovedContent(approved, withCaption(await approvedContent(ctx.db, input.post_id, []), caption));
    const out = await approveCarousel(ctx.db, ownerOf(ctx.auth), input.post_id, ctx.app.clock.now(), caption);
    return {
      data: { post_id: out.post_id, status: out.status },
    };
  },
};
