/**
 * Network rules at the call (src/providers/social/rules.ts, src/domain/social/validate.ts): every rule of
 * the table, X's weighted length through twitter-text, and publish_post / schedule_post answering
 * `validation_failed` naming the destination and the rule before anything is created.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  checkNetworkRules,
  captionLength,
  type RuleMedia,
} from "../../../src/providers/social/rule-check.ts";
import { handler as publishHandler } from "../../../src/tools/social/publish_post.ts";
import { handler as scheduleHandler } from "../../../src/tools/social/schedule_post.ts";
import {
  account,
  imagePost,
  key,
  media,
  named,
  postWithMedia,
  setup,
  textPost,
  toolContext,
  toolError,
} from "../../tools/carousels/fixtures.ts";

const MB = 1024 * 1024;
const jpeg = (over: Partial<RuleMedia> = {}): RuleMedia => ({
  kind: "image",
  mime: "image/jpeg",
  bytes: 200_000,
  width: 1080,
  height: 1080,
  durationSeconds: null,
  ...over,
});
const video = (seconds: number, over: Partial<RuleMedia> = {}): RuleMedia => ({
  kind: "video",
  mime: "video/mp4",
  bytes: 20 * MB,
  width: 1080,
  height: 1920,
  durationSeconds: seconds,
  ...over,
});
const rules = (network: Parameters<typeof checkNetworkRules>[0], caption: string, m: RuleMedia[]) =>
  checkNetworkRules(network, { caption, media: m }).map((v) => v.rule);

test("caption length per network; X counts the weighted length (URLs 23, emoji 2)", () => {
  assert.deepEqual(rules("instagram", "a".repeat(2200), [jpeg()]), []);
  assert.deepEqual(rules("instagram", "a".repeat(2201), [jpeg()]), ["caption_length"]);
  assert.deepEqual(rules("pinterest", "a".repeat(501), [jpeg()]), ["caption_length"]);
  assert.deepEqual(rules("linkedin", "a".repeat(3001), []), ["caption_length"]);
  // 140 emoji are 140 characters but 280 weighted: exactly at X's limit; one more is over.
  assert.equal(captionLength("x", "😀".repeat(140)), 280);
  assert.deepEqual(rules("x", "😀".repeat(140), []), []);
  assert.deepEqual(rules("x", "😀".repeat(141), []), ["caption_length"]);
  // A URL counts 23 whatever its length: 256 letters + a space + a 100-character URL weigh 280.
  const url = `https://example.com/${"p".repeat(80)}`;
  assert.equal(captionLength("x", `${"a".repeat(256)} ${url}`), 280);
  assert.deepEqual(rules("x", `${"a".repeat(256)} ${url}`, []), []);
  const message = checkNetworkRules("x", { caption: "😀".repeat(141), media: [] })[0]!.message;
  assert.match(message, /282 weighted characters .* X accepts at most 280/);
});

test("media required, video required, images not accepted", () => {
  assert.deepEqual(rules("instagram", "text only", []), ["media_required"]);
  assert.deepEqual(rules("tiktok", "text only", []), ["media_required"]);
  assert.deepEqual(rules("youtube", "text only", []), ["video_required"]);
  assert.deepEqual(rules("youtube", "", [jpeg()]), ["video_required"]);
  assert.deepEqual(rules("facebook", "text only", []), []);
  assert.deepEqual(rules("youtube", "", [video(60)]), []);
});

test("count of images: carousel bounds per network", () => {
  const n = (k: number) => Array.from({ length: k }, () => jpeg());
  assert.deepEqual(rules("instagram", "", n(10)), []);
  assert.deepEqual(rules("instagram", "", n(11)), ["image_count"]);
  assert.deepEqual(rules("x", "", n(4)), []);
  assert.deepEqual(rules("x", "", n(5)), ["image_count"]);
  assert.deepEqual(rules("pinterest", "", n(6)), ["image_count"]);
  assert.deepEqual(rules("tiktok", "", n(35)), []);
  assert.match(
    checkNetworkRules("x", { caption: "", media: n(5) })[0]!.message,
    /5 items; X accepts at most 4/,
  );
});

test("image vs video: mixing and more than one video", () => {
  assert.deepEqual(rules("instagram", "", [jpeg(), video(10)]), [], "Instagram carousels may mix");
  assert.deepEqual(rules("x", "", [jpeg(), video(10)]), ["mixed_media"]);
  assert.deepEqual(rules("facebook", "", [video(10), video(10)]), ["video_count"]);
});

test("JPEG required, image size, same dimensions", () => {
  assert.deepEqual(rules("instagram", "", [jpeg({ mime: "image/png" })]), ["image_format"]);
  assert.match(
    checkNetworkRules("instagram", { caption: "", media: [jpeg({ mime: "image/png" })] })[0]!.message,
    /item 1 is PNG; Instagram accepts JPEG images only/,
  );
  assert.deepEqual(rules("tiktok", "", [jpeg({ mime: "image/png" })]), ["image_format"]);
  assert.deepEqual(rules("tiktok", "", [jpeg({ mime: "image/webp" })]), []);
  assert.deepEqual(rules("instagram", "", [jpeg({ bytes: 9 * MB })]), ["image_size"]);
  assert.deepEqual(rules("pinterest", "", [jpeg(), jpeg({ width: 1000 })]), ["image_dimensions"]);
});

test("video length and size", () => {
  assert.deepEqual(rules("instagram", "", [video(2)]), ["video_duration"]);
  assert.deepEqual(rules("youtube", "", [video(181)]), ["video_duration"]);
  assert.deepEqual(rules("x", "", [video(141)]), ["video_duration"]);
  assert.deepEqual(rules("x", "", [video(30, { bytes: 600 * MB })]), ["video_size"]);
  assert.match(
    checkNetworkRules("youtube", { caption: "", media: [video(181)] })[0]!.message,
    /item 1 lasts 181 s; YouTube accepts videos of 1 to 180 s/,
  );
});

test("every network's text limits from the rule table: refused naming the network, the limit and the length", () => {
  const text = (
    network: Parameters<typeof checkNetworkRules>[0],
    caption: string,
    title: string | null = null,
  ) => checkNetworkRules(network, { caption, title, media: network === "youtube" ? [video(30)] : [jpeg()] });
  const cases: Array<[Parameters<typeof checkNetworkRules>[0], string, string | null, RegExp | null]> = [
    ["x", "a".repeat(280), null, null],
    ["x", "a".repeat(281), null, /caption is 281 weighted characters .*; X accepts at most 280/],
    ["instagram", "a".repeat(2201), null, /caption is 2201 characters; Instagram accepts at most 2200/],
    ["instagram", Array.from({ length: 30 }, (_, i) => `#tag${i}`).join(" "), null, null],
    [
      "instagram",
      Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(" "),
      null,
      /caption has 31 hashtags; Instagram accepts at most 30/,
    ],
    ["tiktok", "a".repeat(2200), null, null],
    ["tiktok", "a".repeat(2201), null, /caption is 2201 characters; TikTok accepts at most 2200/],
    ["linkedin", "a".repeat(3001), null, /caption is 3001 characters; LinkedIn accepts at most 3000/],
    ["facebook", "a".repeat(63207), null, /caption is 63207 characters; Facebook accepts at most 63206/],
    ["pinterest", "a".repeat(500), "t".repeat(100), null],
    [
      "pinterest",
      "a".repeat(501),
      null,
      /caption \(the Pinterest description\) is 501 characters; Pinterest accepts at most 500/,
    ],
    [
      "pinterest",
      "short",
      "t".repeat(101),
      /title \(the first line of the post's title\) is 101 characters; Pinterest accepts at most 100/,
    ],
    // Pinterest's title is the post's own: a long caption line makes no title (the description carries it).
    ["pinterest", "a".repeat(300), null, null],
    ["youtube", `${"a".repeat(100)}\nmore`, null, null],
    [
      "youtube",
      `${"a".repeat(101)}\nmore`,
      null,
      /title \(the first line of the post's title, else of its caption\) is 101 characters; YouTube accepts at most 100/,
    ],
    ["youtube", "caption", `Title\n${"b".repeat(200)}`, null],
  ];
  for (const [network, caption, title, want] of cases) {
    const found = text(network, caption, title);
    if (want === null) assert.deepEqual(found, [], `${network}: ${caption.slice(0, 20)}`);
    else assert.match(found.map((v) => `${v.rule}: ${v.message}`).join("; "), want, network);
  }
  // YouTube counts bytes as sent: "Title\n" is 6 bytes, 2497 é are 4994: 5000 is at the limit, one more is over.
  assert.deepEqual(text("youtube", `Title\n${"é".repeat(2497)}`), []);
  assert.match(
    text("youtube", `Title\n${"é".repeat(2497)}!`)
      .map((v) => `${v.rule}: ${v.message}`)
      .join(),
    /^caption_length: the caption \(the YouTube description\) is 5001 bytes of UTF-8; YouTube accepts at most 5000$/,
  );
});

test("aspect ratios per network and media kind: the ratio found and the allowed range", () => {
  const story = jpeg({ width: 1080, height: 1920 });
  assert.deepEqual(rules("instagram", "", [jpeg({ width: 1080, height: 1350 })]), []);
  assert.deepEqual(
    rules("instagram", "", [jpeg({ width: 1080, height: 566 })]),
    [],
    "Instagram's own 1.91:1",
  );
  assert.match(
    checkNetworkRules("instagram", { caption: "", media: [story] })[0]!.message,
    /item 1 is 1080x1920 pixels, ratio 0\.56:1 \(9:16\); Instagram accepts feed images of 4:5 to 1\.91:1 only/,
  );
  assert.match(
    checkNetworkRules("instagram", { caption: "", media: [jpeg(), story] })[0]!.message,
    /item 2 is 1080x1920 .*Instagram accepts carousel images of 4:5 to 1\.91:1 only/,
  );
  assert.deepEqual(rules("instagram", "", [jpeg({ width: 2000, height: 1000 })]), ["aspect_ratio"]);
  assert.deepEqual(rules("instagram", "", [video(30)]), [], "9:16 is for Reels");
  assert.deepEqual(rules("facebook", "", [story]), [], "Facebook takes any ratio");
  assert.deepEqual(rules("linkedin", "", [video(30, { width: 1080, height: 2592 })]), []);
  assert.match(
    checkNetworkRules("linkedin", { caption: "", media: [video(30, { width: 1000, height: 3000 })] })[0]!
      .message,
    /ratio 0\.33:1 \(1:3\); LinkedIn accepts videos of 1:2\.4 to 2\.4:1 only/,
  );
  assert.deepEqual(rules("x", "", [video(30, { width: 1000, height: 4000 })]), ["aspect_ratio"]);
  assert.deepEqual(rules("x", "", [video(30, { width: 1000, height: 3000 })]), []);
  assert.deepEqual(rules("pinterest", "", [video(30, { width: 1920, height: 1080 })]), []);
  assert.match(
    checkNetworkRules("pinterest", { caption: "", media: [video(30, { width: 2350, height: 1000 })] })[0]!
      .message,
    /ratio 2\.35:1 \(47:20\); Pinterest accepts video Pins of 1:2 to 1\.91:1 only/,
  );
  assert.deepEqual(
    rules("instagram", "", [jpeg({ width: null, height: null })]),
    [],
    "unknown size: not checked",
  );
});

const { app, me } = await setup();
const insta = await account(app, me, "instagram", "Shop Insta");
const xAccount = await account(app, me, "x", "Shop X");
const youtube = await account(app, me, "youtube", "Shop Tube");
const tiktok = await account(app, me, "tiktok", "Shop TikTok");
const publish = named("publish_post", publishHandler);

const schedule = named("schedule_post", scheduleHandler);

test("publish_post: validation_failed names the destination, network and rule; nothing is created", async () => {
  const postId = await textPost(app, me, "😀".repeat(141));
  const err = await toolError(
    publish.describe!(
      { post_id: postId, social_account_ids: [insta, xAccount, youtube], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(
    err.message,
    /destination "Shop Insta" \(Instagram, social_account_id [0-9a-f-]{36}\): media_required/,
  );
  assert.match(
    err.message,
    /destination "Shop X" \(X, social_account_id [0-9a-f-]{36}\): caption_length: the caption is 282 weighted/,
  );
  // YouTube also takes the title from the caption's first line: 141 characters, over its 100.
  assert.match(
    err.message,
    /destination "Shop Tube" \(YouTube, .*\): title_length: the title \(the first line of the post's title, else of its caption\) is 141 characters; YouTube accepts at most 100; video_required/,
  );
  const violations = (err.details as { violations: Array<{ social_account_id: string; rule: string }> })
    .violations;
  assert.deepEqual(
    violations.map((v) => [v.social_account_id, v.rule]),
    [
      [insta, "media_required"],
      [xAccount, "caption_length"],
      [youtube, "title_length"],
      [youtube, "video_required"],
    ],
  );
  assert.equal((await app.ctx.db("deliveries").where({ post_id: postId })).length, 0);
  assert.equal(
    Number((await app.ctx.db("operations").count({ n: "*" }).first())?.n),
    0,
    "no approval was created",
  );
});

test("schedule_post checks the same rules; a PNG to Instagram is refused as JPEG required", async () => {
  const png = await media(app, me, "image");
  const post = { id: await postWithMedia(app, me, "PNG slide", [png]) };
  const err = await toolError(
    schedule.describe!(
      {
        post_id: post.id,
        scheduled_for: new Date(Date.now() + 3600_000).toISOString(),
        social_account_ids: [insta],
        idempotency_key: key(),
      },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(err.message, /"Shop Insta" .*image_format: item 1 is PNG; Instagram accepts JPEG images only/);
  const ok = await imagePost(app, me, "JPEG slide");
  await schedule.describe!(
    {
      post_id: ok,
      scheduled_for: new Date(Date.now() + 3600_000).toISOString(),
      social_account_ids: [insta],
      idempotency_key: key(),
    },
    toolContext(app, me),
  );
});

test("publish_post refuses a 9:16 (story format) image for Instagram naming the ratio and the range", async () => {
  const [asset] = await app.ctx
    .db("media_assets")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      kind: "image",
      mime_type: "image/jpeg",
      bytes: 300_000,
      width: 1080,
      height: 1920,
      storage_key: "test/story.jpg",
      title: "story slide",
    })
    .returning("id");
  const post = { id: await postWithMedia(app, me, "Story-sized slide", [asset.id]) };
  const err = await toolError(
    publish.describe!(
      { post_id: post.id, social_account_ids: [insta, xAccount], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(
    err.message,
    /"Shop Insta" \(Instagram, .*\): aspect_ratio: item 1 is 1080x1920 pixels, ratio 0\.56:1 \(9:16\); Instagram accepts feed images of 4:5 to 1\.91:1 only/,
  );
  assert.ok(!err.message.includes("Shop X"), "X takes any image ratio");
  assert.equal((await app.ctx.db("deliveries").where({ post_id: post.id })).length, 0);
});

test("schedule_post refuses a caption over a destination's limit, never cut: Instagram's 30 hashtags", async () => {
  const caption = `Summer drop ${Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(" ")}`;
  const postId = await imagePost(app, me, caption);
  const err = await toolError(
    schedule.describe!(
      {
        post_id: postId,
        scheduled_for: new Date(Date.now() + 3600_000).toISOString(),
        social_account_ids: [insta],
        idempotency_key: key(),
      },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.match(err.message, /hashtag_count: the caption has 31 hashtags; Instagram accepts at most 30/);
  assert.equal(
    (await app.ctx.db("posts").where({ id: postId }).first("caption")).caption,
    caption,
    "not cut",
  );
});

test("a TikTok destination's refusal gives the /review URL", async () => {
  const ok = await imagePost(app, me, "for tiktok");
  const err = await toolError(
    publish.describe!(
      { post_id: ok, social_account_ids: [tiktok], idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(err.code, "validation_failed");
  assert.ok(err.message.includes(`${app.url}/review`));
  assert.equal((err.details as { review_url: string }).review_url, `${app.url}/review`);
});
