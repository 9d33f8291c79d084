/**
 * Captions of generated carousels (docs/operations.md "Captions of generated posts") over a real database and
 * the local text provider: the render writes one (hook, value lines, call to action with the product link,
 * hashtags) from the product and the slides' copy, once; get_carousel and get_post return it; an agent's
 * `caption` to generate_carousel or approve_carousel is kept exactly, shown exactly on the approval page and
 * bound by its fingerprint; a caption with a control character or over 5,000 characters is refused naming the
 * field and the rule, and nothing changes; a caption over a destination's limit is refused at publish_post
 * naming the network, the limit and the length. The bottle product is test/fixtures/product-descriptions.ts's
 * first fixture.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { processCarouselRender } from "../../../src/operations/render.ts";
import { handler as approveHandler } from "../../../src/tools/carousels/approve_carousel.ts";
import { handler as generateHandler } from "../../../src/tools/carousels/generate_carousel.ts";
import { handler as getCarouselHandler } from "../../../src/tools/carousels/get_carousel.ts";
import { handler as getPostHandler } from "../../../src/tools/content/get_post.ts";
import { handler as publishHandler } from "../../../src/tools/social/publish_post.ts";
import type { ApprovalDescription } from "../../../src/tool-contract.ts";
import { renderApproval } from "../../helpers/approval-page.ts";
import { PRODUCT_FIXTURES } from "../../fixtures/product-descriptions.ts";
import {
  account,
  balance,
  inline,
  key,
  named,
  product,
  queued,
  reviewed,
  setup,
  toolContext,
  toolError,
} from "./fixtures.ts";

const generate = named("generate_carousel", generateHandler);
const getCarousel = named("get_carousel", getCarouselHandler);
const getPost = named("get_post", getPostHandler);
const approve = named("approve_carousel", approveHandler);
const publish = named("publish_post", publishHandler);

const { app, me } = await setup();
const { id: _fixtureId, ...bottle } = PRODUCT_FIXTURES.find((p) => p.id === "bottle")!;
const bottleId = await product(app, me, { ...bottle, tags: JSON.stringify(bottle.tags) });
const insta = await account(app, me, "instagram", "Shop Insta");

const page = (d: ApprovalDescription) => renderApproval(d, "approve_carousel");

async function carousel(extra: Record<string, unknown> = {}) {
  const { accepted, render } = await queued(app, me, generate, {
    product_id: bottleId,
    slide_count: 6,
    design_id: "bold-minimal",
    prompt: "For weekend hikers",
    idempotency_key: key(),
    ...extra,
  } as never);
  assert.deepEqual(render, { claimed: true, status: "succeeded" });
  return (accepted.data as { post_id: string; run_id: string }).post_id;
}

test("a generated carousel gets a caption: hook, value lines, a call to action with the link, hashtags", async () => {
  const postId = await carousel();
  const view = await inline(app, me, getCarousel, { post_id: postId });
  const caption = view.data.caption;
  assert.ok(caption, "get_carousel returns the caption");
  const post = await inline(app, me, getPost, { post_id: postId });
  assert.equal(post.data.caption, caption, "get_post returns the same caption");

  const [text, tagLine] = caption.split("\n\n");
  const lines = text!.split("\n");
  // Hook, 2-4 value lines, call to action.
  assert.ok(lines.length >= 4 && lines.length <= 6, `hook + 2..4 lines + CTA, got ${lines.length}`);
  assert.match(lines[0]!, /Summit Bottle/);
  assert.ok(lines.at(-1)!.endsWith(bottle.product_url!), "the call to action ends with the product link");
  assert.match(lines.at(-1)!, /\$39\.00/);
  const tags = tagLine!.split(" ");
  assert.ok(tags.length >= 3 && tags.length <= 8, `3..8 hashtags, got ${tags.length}`);
  for (const t of tags) assert.match(t, /^#[\p{L}\p{N}_]+$/u);
  // No broken or repeated line: no line ends inside a number ("A 1."), none appears twice.
  for (const l of lines) {
    assert.doesNotMatch(l, /(^|\s)\p{L} \d+\.$/u, `cut at a decimal point: ${l}`);
    assert.ok(l.split(" ").length >= 3, `a line of fewer than 3 words: ${l}`);
  }
  assert.ok(lines.includes(bottle.description!.split(". ")[0]! + "."), "the 1.2 litre sentence is whole");
  assert.equal(new Set(lines).size, lines.length, "no repeated line");
  assert.doesNotMatch(caption, /(?!\n)\p{Cc}/u);

  // The caption is a checkpoint: rendering the run again (a resumed render) writes nothing new.
  const before = await app.ctx.db("posts").where({ id: postId }).first("caption", "updated_at");
  await app.ctx.db("carousel_runs").where({ post_id: postId }).update({ status: "queued" });
  await processCarouselRender(app.ctx, view.data.run.run_id);
  const after = await app.ctx.db("posts").where({ id: postId }).first("caption");
  assert.equal(after.caption, before.caption);

  // It passes the network limits at publish_post once approved.
  await reviewed(app, me, approve, { post_id: postId, idempotency_key: key() });
  const described = await publish.describe!(
    { post_id: postId, social_account_ids: [insta], idempotency_key: key() },
    toolContext(app, me),
  );
  assert.equal(described.text, caption);
});

test("generate_carousel with `caption` keeps the agent's caption exactly", async () => {
  const mine = "Cold for 24 hours.\n\n  Hot for 12 — ☕️ and 🧊.\nhttps://summitgear.example #hike";
  const postId = await carousel({ caption: mine });
  const view = await inline(app, me, getCarousel, { post_id: postId });
  assert.equal(view.data.caption, mine);
  assert.equal((await inline(app, me, getPost, { post_id: postId })).data.caption, mine);
});

test("approve_carousel with `caption`: the page shows exactly it, the fingerprint binds it, the post keeps it", async () => {
  const postId = await carousel();
  const generated = (await app.ctx.db("posts").where({ id: postId }).first("caption")).caption;
  const mine =
    "Trail-tested.\nKeeps ice for a full day.\nShop now https://summitgear.example\n\n#hiking #outdoors #gear";
  const plain = await approve.describe!({ post_id: postId, idempotency_key: key() }, toolContext(app, me));
  const { description, result } = await reviewed(app, me, approve, {
    post_id: postId,
    caption: mine,
    idempotency_key: key(),
  });
  assert.equal(description.text, mine);
  assert.equal(description.content?.caption, mine);
  assert.notEqual(description.fingerprint, plain.fingerprint, "the fingerprint includes the caption");
  const $ = cheerio.load(page(description));
  assert.equal($("#caption").text(), mine, "the approval page shows exactly the caption approved");
  assert.ok(!page(description).includes(generated), "the generated caption is not shown");
  assert.equal(result.data.status, "approved");
  const post = await app.ctx.db("posts").where({ id: postId }).first("caption", "status");
  assert.deepEqual(post, { caption: mine, status: "approved" });
});

test("a caption with a control character or over 5,000 characters is refused; nothing changes", async () => {
  const postId = await carousel();
  const stored = await app.ctx.db("posts").where({ id: postId }).first("caption", "updated_at");
  const credits = await balance(app, me);
  const posts = Number((await app.ctx.db("posts").count({ n: "*" }).first())?.n);
  const cases: Array<[string, RegExp, string]> = [
    [
      "Hello\u0007 there",
      /caption must not contain control characters other than newline \(found U\+0007 at character 6\)/,
      "pattern",
    ],
    ["tab\there", /U\+0009/, "pattern"],
    ["x".repeat(5001), /caption must be at most 5000 characters \(it has 5001\)/, "maxLength"],
  ];
  for (const [caption, message, keyword] of cases) {
    // Called without the test's schema check, so the domain rule itself is exercised.
    const gen = await toolError(
      app.ctx.db.transaction((trx) =>
        generateHandler.accept!(
          {
            product_id: bottleId,
            slide_count: 6,
            design_id: "bold-minimal",
            caption,
            idempotency_key: key(),
          },
          toolContext(app, me, trx),
        ),
      ),
    );
    const appr = await toolError(
      approveHandler.describe!({ post_id: postId, caption, idempotency_key: key() }, toolContext(app, me)),
    );
    for (const err of [gen, appr]) {
      assert.equal(err.code, "validation_failed");
      assert.match(err.message, message);
      const [issue] = err.details as Array<{ instancePath: string; keyword: string }>;
      assert.equal(issue!.instancePath, "/caption");
      assert.equal(issue!.keyword, keyword);
      assert.ok(!err.message.includes(caption.slice(0, 20)), "the caption is not echoed");
    }
    await toolError(
      approveHandler.execute({ post_id: postId, caption, idempotency_key: key() }, toolContext(app, me)),
    );
  }
  assert.equal(await balance(app, me), credits, "nothing charged");
  assert.equal(Number((await app.ctx.db("posts").count({ n: "*" }).first())?.n), posts, "no post created");
  assert.deepEqual(await app.ctx.db("posts").where({ id: postId }).first("caption", "updated_at"), stored);
});

test("an agent caption over Instagram's limit is refused at publish_post naming network, limit and length", async () => {
  const long = `${"Made for long days on the trail. ".repeat(75)}`.trim();
  assert.ok(long.length > 2200 && long.length <= 5000);
  const postId = await carousel({ caption: long });
  await reviewed(app, me, approve, { post_id: postId, idempotency_key: key() });
  const err = await toolError(
    publish.describe!(
      { post_id: postId, social_account_ids: [insta], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(
    err.message,
    new RegExp(
      `"Shop Insta" \\(Instagram, .*caption is ${long.length} characters; Instagram accepts at most 2200`,
    ),
  );
  assert.equal((await app.ctx.db("posts").where({ id: postId }).first("caption")).caption, long, "never cut");
  assert.equal((await app.ctx.db("deliveries").where({ post_id: postId })).length, 0);
});
