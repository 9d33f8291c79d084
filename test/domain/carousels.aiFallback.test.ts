/**
 * No generated content is silently made up by a stand-in (src/domain/ai-fallback.ts), with the
 * openai-compatible adapters against the strict Chat Completions and Images fakes (test/fakes/): when the
 * text provider cannot write the slides' copy the run fails with the provider's error before anything is
 * drawn and its credits come back; only with AI_FALLBACK=local does the local provider write it, and then
 * get_carousel, get_post and the approval page say `local` for what it made. A failed image under
 * AI_FALLBACK=local is drawn by the local provider and marked on that slide only.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { openAiCompatibleImage } from "../../src/providers/ai-image/openai-compatible.ts";
import { openAiCompatibleAiText } from "../../src/providers/ai-text/openai-compatible.ts";
import { handler as approveHandler } from "../../src/tools/carousels/approve_carousel.ts";
import { handler as generateHandler } from "../../src/tools/carousels/generate_carousel.ts";
import { handler as getCarouselHandler } from "../../src/tools/carousels/get_carousel.ts";
import { handler as getPostHandler } from "../../src/tools/content/get_post.ts";
import { buildViewData } from "../../src/mcp/apps/view-data.ts";
import { renderApprovalPage } from "../../src/web/approval-page.ts";
import { invalidValue, modelNotFound } from "../fakes/openai-api.ts";
import { startFakeChat } from "../fakes/openai-chat.ts";
import { startFakeImageServer } from "../fakes/openai-images.ts";
import {
  balance,
  inline,
  key,
  named,
  product,
  queued,
  toolContext,
  setup,
} from "../tools/carousels/fixtures.ts";

const chat = await startFakeChat();
const images = await startFakeImageServer();
after(() => Promise.all([chat.close(), images.close()]));
const text = openAiCompatibleAiText({
  baseUrl: chat.baseUrl,
  model: "gpt-4.1-mini",
  timeoutSeconds: 5,
  maxRetries: 0,
});
const image = openAiCompatibleImage({ baseUrl: images.baseUrl, model: "gpt-image-1.5", timeoutSeconds: 60 });
const { app, me } = await setup("creator", { text, image });
const productId = await product(app, me);
const generate = named("generate_carousel", generateHandler);
const getCarousel = named("get_carousel", getCarouselHandler);
const getPost = named("get_post", getPostHandler);

const sample = chat.reply;
chat.reply = (body) => {
  const name = body?.response_format?.json_schema?.name;
  if (name === "carousel_copy")
    return {
      slides: JSON.parse(body.messages[1].content).data.slides.map((s: { position: number }) => ({
        headline: `Model headline ${s.position}`,
        body: `Model body ${s.position}.`,
      })),
    };
  if (name === "post_caption")
    return {
      hook: "Glow on",
      lines: ["Vitamin C daily.", "Light texture."],
      call_to_action: "Try it",
      hashtags: ["#glow", "#skin", "#care"],
    };
  return sample(body);
};

async function carousel(status: string) {
  const { accepted, render } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 4,
    design_id: "bold-minimal",
    idempotency_key: key(),
  });
  assert.deepEqual(render, { claimed: true, status });
  return { postId: accepted.data.post_id, runId: accepted.data.run_id, credits: accepted.credits_charged! };
}

test("the text provider fails: the run fails with its error, nothing is drawn, the credits come back", async () => {
  const before = await balance(app, me);
  chat.faults.push(modelNotFound("gpt-4.1-mini"));
  const c = await carousel("failed");
  assert.equal(c.credits, 20);
  assert.equal(await balance(app, me), before, "charged at the call, refunded when the run failed");
  const run = await app.ctx.db("carousel_runs").where({ id: c.runId }).first("error");
  assert.match(
    run.error,
    /^the AI text provider could not write the slides' copy \(.*model_not_found.*AI_TEXT_MODEL.*\); nothing was drawn and its 20 credits were refunded/,
  );
  const view = (await inline(app, me, getCarousel, { post_id: c.postId })).data;
  assert.ok(view.slides.every((s) => s.status === "failed" && s.image_asset_id === null));
  assert.ok(
    view.slides.every((s) => s.provider === null),
    "no copy was made",
  );
  assert.equal(view.caption, null);
  const ledger = await app.ctx.db("credit_ledger").where({ reference_id: c.runId }).select("delta", "reason");
  assert.deepEqual(
    ledger.map((l) => [Number(l.delta), l.reason]),
    [
      [-20, "charge:generate_carousel"],
      [20, "refund:carousel_run"],
    ],
  );
});

test("AI_FALLBACK=local: the local provider writes the copy, and every output says local", async () => {
  app.ctx.config.aiFallback = "local";
  try {
    chat.faults.push(modelNotFound("gpt-4.1-mini"));
    const c = await carousel("succeeded");
    const view = (await inline(app, me, getCarousel, { post_id: c.postId })).data;
    assert.ok(
      view.slides.every((s) => s.status === "ready" && s.provider === "local"),
      JSON.stringify(view.slides),
    );
    assert.ok(
      view.slides.every((s) => !s.headline?.includes("Model headline")),
      "the local provider's copy",
    );
    assert.equal(view.caption_provider, "openai-compatible", "the caption was the model's");
    const post = (await inline(app, me, getPost, { post_id: c.postId })).data;
    assert.equal(post.media_provider, "local");
    assert.equal(post.caption_provider, "openai-compatible");
    // The views get the same marks (MCP Apps view data of get_carousel and get_post).
    const auth = {
      userId: me.user_id,
      workspaceId: me.workspace_id,
      grantId: key(),
      clientId: key(),
      scopes: new Set(["read:content"]),
      tokenId: key(),
    };
    const ok = { request_id: key(), status: "succeeded" } as const;
    const carouselView = (await buildViewData(
      app.ctx,
      "get_carousel",
      { post_id: c.postId },
      ok,
      auth,
    )) as any;
    assert.deepEqual(
      carouselView.slides.map((s: { provider: string }) => s.provider),
      ["local", "local", "local", "local"],
    );
    assert.equal(carouselView.caption_provider, "openai-compatible");
    const postView = (await buildViewData(app.ctx, "get_post", { post_id: c.postId }, ok, auth)) as any;
    assert.equal(postView.post.media_provider, "local");
    const description = await approveHandler.describe!(
      { post_id: c.postId, idempotency_key: key() },
      toolContext(app, me),
    );
    const page = renderApprovalPage({
      op: {
        state: "approval_required",
        tool: "approve_carousel",
        created_at: new Date(),
        approval_expires_at: null,
      } as never,
      toolTitle: "Approve carousel",
      clientName: "Agent",
      clientVerified: true,
      description,
      csrfToken: "t",
      now: new Date(),
    });
    assert.match(page, /id="stand-ins"/);
    assert.match(page, /made by the offline local stand-in[^<]*: slides 1, 2, 3 and 4/);
  } finally {
    app.ctx.config.aiFallback = "none";
  }
});

test("AI_FALLBACK=local: a failed image is drawn by the local provider and marked on its slide only", async () => {
  app.ctx.config.aiFallback = "local";
  try {
    images.faults.push(invalidValue("size", "1080x1080", "1024x1024, 1024x1536, 1536x1024, auto"));
    const c = await carousel("succeeded");
    const view = (await inline(app, me, getCarousel, { post_id: c.postId })).data;
    const providers = view.slides.map((s) => s.provider);
    assert.equal(providers.filter((p) => p === "local").length, 1, String(providers));
    assert.equal(providers.filter((p) => p === "openai-compatible").length, 3, String(providers));
    assert.ok(view.slides.every((s) => s.headline?.includes("Model headline")));
  } finally {
    app.ctx.config.aiFallback = "none";
  }
});
