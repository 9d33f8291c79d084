/**
 * Alt text of an image post: create_image_post takes `alt_texts` aligned with `media_asset_ids` (a longer one
 * refused naming `/alt_texts/i` and the limit, nothing saved), get_post returns them (an asset's own alt text
 * where none was given), they are part of the approved content (a changed alt text changes the fingerprint),
 * and the approval page shows each under its picture.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import type { OperationRow } from "../../../src/domain/operations/store.ts";
import { postContent, postFingerprint } from "../../../src/domain/social/content.ts";
import { handler as createImageHandler } from "../../../src/tools/content/create_image_post.ts";
import { handler as getPostHandler } from "../../../src/tools/content/get_post.ts";
import { handler as publishHandler } from "../../../src/tools/social/publish_post.ts";
import { renderApprovalPage } from "../../../src/web/approval-page.ts";
import {
  account,
  inline,
  key,
  named,
  reviewed,
  setup,
  storedImage,
  toolError,
} from "../carousels/fixtures.ts";

const createImage = named("create_image_post", createImageHandler);
const getPost = named("get_post", getPostHandler);
const publish = named("publish_post", publishHandler);
const { app, me } = await setup();
const x = await account(app, me, "x", "Shop X");

test("create_image_post alt_texts: saved, returned by get_post, bound by the approval, shown on its page", async () => {
  const [a, b] = [await storedImage(app, me), await storedImage(app, me)];
  await app.ctx.db("media_assets").where({ id: b }).update({ alt_text: "The asset's own words" });
  const { data } = await inline(app, me, createImage, {
    media_asset_ids: [a, b],
    caption: "Two mugs",
    alt_texts: ["A blue mug on a desk"],
    idempotency_key: key(),
  });
  const { data: post } = await inline(app, me, getPost, { post_id: data.post_id });
  assert.deepEqual(post.alt_texts, ["A blue mug on a desk", "The asset's own words"]);

  const content = await postContent(app.ctx.db, data.post_id);
  assert.deepEqual(content.alt_texts, ["A blue mug on a desk", "The asset's own words"]);
  const before = postFingerprint(content);
  await app.ctx.db("media_assets").where({ id: b }).update({ alt_text: "Changed words" });
  assert.notEqual(
    postFingerprint(await postContent(app.ctx.db, data.post_id)),
    before,
    "alt text is approved content",
  );

  const { description } = await reviewed(app, me, publish, {
    post_id: data.post_id,
    social_account_ids: [x],
    idempotency_key: key(),
  });
  assert.deepEqual(
    description.images?.map((i) => i.alt),
    ["A blue mug on a desk", "Changed words"],
  );
  const html = renderApprovalPage({
    op: {
      id: randomUUID(),
      tool: "publish_post",
      state: "approval_required",
      approval_expires_at: new Date(Date.now() + 600_000),
      created_at: new Date(),
    } as OperationRow,
    toolTitle: "Publish post",
    clientName: "Agent",
    clientVerified: true,
    description,
    csrfToken: "t",
    now: new Date(),
  });
  assert.match(html, /alt="A blue mug on a desk"/);
  assert.match(html, /Alt text: A blue mug on a desk/);
});

test("create_image_post: an alt text over 1,000 characters or more alt texts than images is refused, nothing saved", async () => {
  const img = await storedImage(app, me);
  const before = await app.ctx.db("posts").count<{ count: string }[]>("* as count");
  // The catalog's schema (the pipeline validates every call with it) names the item and the limit.
  await assert.rejects(
    inline(app, me, createImage, {
      media_asset_ids: [img],
      caption: "Too long",
      alt_texts: ["x".repeat(1001)],
      idempotency_key: key(),
    }),
    /\/alt_texts\/0 must not have more than 1000 characters/,
  );
  const many = await toolError(
    inline(app, me, createImage, {
      media_asset_ids: [img],
      caption: "Too many",
      alt_texts: ["one", "two"],
      idempotency_key: key(),
    }),
  );
  assert.deepEqual(many.details, { path: "/alt_texts" });
  assert.deepEqual(await app.ctx.db("posts").count<{ count: string }[]>("* as count"), before);
});
