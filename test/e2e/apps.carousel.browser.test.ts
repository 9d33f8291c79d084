/**
 * The carousel view (ui://social-mcp/carousel) in a real MCP Apps host: the official AppBridge shows the view
 * read from the running service in a sandboxed iframe in headless Chromium, with generate_carousel's real
 * result (test/helpers/app-host.ts). What a person sees: the four numbered slides at the format's aspect
 * ratio, waiting while the job is queued; once the worker starts, the view's own get_carousel calls (2 s
 * first, then 5 s or more apart) turn the slides ready and show the rendered 1080x1350 images, the caption
 * and the credits charged. approve_carousel's view shows what the approval does and its one button opens the
 * approval page in a new tab; the view never approves, never calls a write tool, logs no error and requests
 * nothing but the service's signed media URLs.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import { startWorker } from "../../src/operations/worker.ts";
import {
  appsWorld,
  followApproval,
  openAppHost,
  pollEverySecond,
  requestsOutside,
  screenshotView,
} from "../helpers/app-host.ts";
import { product } from "../tools/carousels/fixtures.ts";

// A queue but no worker: the job waits until a test starts one (withWorker).
const {
  app,
  browser,
  owner,
  client,
  media: MEDIA,
} = await appsWorld({
  app: { queue: true },
  scopes: ["read:products", "create:carousels", "read:content", "manage:carousels", "read:jobs"],
});
await grantCredits(app.ctx.db, owner.user_id, 500, "test:grant");
const productId = await product(app, owner);
const CAPTION = "Brighter skin in 4 steps: our vitamin C serum, explained. #skincare #vitaminc";

/** Runs `body` with a queue worker running, stopped before the app's own teardown. */
async function withWorker<T>(body: () => Promise<T>): Promise<T> {
  const worker = await startWorker(app.ctx);
  try {
    return await body();
  } finally {
    await worker.stop();
  }
}

test("generate_carousel's view: slides at their size, rendering, then ready after the view's own polls", async () => {
  const uri = await client.viewOf("generate_carousel");
  assert.equal(uri, "ui://social-mcp/carousel");
  const { html, csp } = await client.readView(uri);
  assert.deepEqual(csp, { resourceDomains: [app.url] });

  const args = {
    product_id: productId,
    slide_count: 4,
    design_id: "product-showcase",
    format: "portrait",
    idempotency_key: randomUUID(),
  };
  const result: any = await client.callTool("generate_carousel", args);
  assert.equal(result.structuredContent.status, "queued", JSON.stringify(result.structuredContent));
  const postId = result.structuredContent.data.post_id as string;
  // The caption the user wrote for the post (tools set it on posts; carousels get theirs in another change).
  await app.ctx.db("posts").where({ id: postId }).update({ caption: CAPTION });

  const host = await openAppHost(browser, client.callTool);
  const shownAt = Date.now();
  await host.show({
    html,
    csp,
    toolName: "generate_carousel",
    args,
    result,
    hostContext: { theme: "light" },
  });
  const slides = host.view.locator("figure.slide");
  await slides.nth(3).waitFor();
  assert.equal(await slides.count(), 4);
  // Read in one go: the view redraws on every refresh, which would detach elements between two reads.
  const seen = await slides.evaluateAll((figures) =>
    figures.map((f) => {
      const r = f.querySelector(".frame")!.getBoundingClientRect();
      return {
        number: f.querySelector(".number")!.textContent,
        text: f.textContent,
        ratio: r.width / r.height,
      };
    }),
  );
  seen.forEach((slide, i) => {
    assert.equal(slide.number, `${i + 1}/4`);
    assert.match(slide.text ?? "", /Waiting to render|Rendering/);
    assert.ok(Math.abs(slide.ratio - 1080 / 1350) < 0.01, `slide ${i + 1} is 4:5, got ${slide.ratio}`);
  });
  const header = (await host.view.locator("header").textContent()) ?? "";
  assert.match(header, /portrait 1080×1350/);
  assert.match(header, /0 of 4 slides ready/);
  assert.match(header, /20 credits charged/);
  await screenshotView(host, "carousel-rendering");

  // The job runs once a worker is there; the view sees it through its own get_carousel calls.
  const ready = host.view.locator('figure.slide[data-status="ready"] img');
  await withWorker(() => ready.nth(3).waitFor({ timeout: 180_000 }));
  await host.view.locator("section.caption").getByText(CAPTION).waitFor();
  const sizes = await ready.evaluateAll((imgs) =>
    imgs.map((i) => {
      const img = i as HTMLImageElement;
      return [img.complete, img.naturalWidth, img.naturalHeight];
    }),
  );
  assert.deepEqual(sizes, Array(4).fill([true, 1080, 1350]));
  assert.match((await host.view.locator("header").textContent()) ?? "", /4 of 4 slides ready/);
  assert.match(
    (await ready.first().getAttribute("alt")) ?? "",
    /^Slide 1 of 4: /,
    "every slide says which one it is",
  );

  // The pace: the first refresh about 2 s after the result, then 5 s or more apart; read tools only.
  assert.ok(host.calls.length >= 1);
  assert.ok(
    host.calls.every((c) => c.name === "get_carousel" && c.args.post_id === postId),
    JSON.stringify(host.calls),
  );
  assert.ok(host.calls.every((c) => TOOLS_BY_NAME.get(c.name)!.access === "read"));
  const times = host.callTimes;
  assert.ok(times[0]! - shownAt >= 1900, `first refresh after ${times[0]! - shownAt} ms`);
  for (let i = 1; i < times.length; i++)
    assert.ok(times[i]! - times[i - 1]! >= 4900, `refreshes ${times[i]! - times[i - 1]!} ms apart`);

  // Arrow keys move through the slides (as swiping does).
  const track = host.view.locator(".track");
  await track.focus();
  await host.page.keyboard.press("ArrowRight");
  for (let i = 0; i < 100 && (await track.evaluate((t) => t.scrollLeft)) === 0; i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.ok((await track.evaluate((t) => t.scrollLeft)) > 0, "the next slide scrolled into view");
  await screenshotView(host, "carousel");
  assert.deepEqual(host.errors, []);
  assert.deepEqual(requestsOutside(host, [MEDIA]), []);
  assert.ok(
    host.viewRequests.some((u) => u.startsWith(MEDIA)),
    "the slides came from signed media URLs",
  );
});

test("approve_carousel's view: what the approval does, and one button that opens the approval page", async () => {
  const started: any = await client.callTool("generate_carousel", {
    product_id: productId,
    slide_count: 4,
    design_id: "product-showcase",
    format: "square",
    idempotency_key: randomUUID(),
  });
  const postId = started.structuredContent.data.post_id as string;
  const done: any = await withWorker(() =>
    pollEverySecond(
      () => client.callTool("get_carousel", { post_id: postId }),
      (c: any) => !["queued", "running"].includes(c.structuredContent.data.run.status),
    ),
  );
  assert.equal(done.structuredContent.data.run.status, "succeeded");
  const args = { post_id: postId, idempotency_key: randomUUID() };
  const result: any = await client.callTool("approve_carousel", args);
  assert.equal(result.structuredContent.status, "approval_required");
  const approvalUrl = result.structuredContent.approval_url as string;

  const { html, csp } = await client.readView("ui://social-mcp/carousel");
  const host = await openAppHost(browser, client.callTool, { width: 390, height: 844 });
  await host.show({ html, csp, toolName: "approve_carousel", args, result, hostContext: { theme: "dark" } });
  const block = host.view.locator("section.approval");
  await block.waitFor();
  assert.match((await block.textContent()) ?? "", /Waiting for your approval/);
  assert.match((await block.textContent()) ?? "", /Approve the 4-slide carousel “Glow Serum”/);
  await host.view.locator('figure.slide[data-status="ready"] img').nth(3).waitFor();
  const square = (await host.view.locator("figure.slide .frame").first().boundingBox())!;
  assert.ok(Math.abs(square.width - square.height) < 1.5, "square slides");
  const buttons = host.view.getByRole("button", { name: "Review and approve" });
  assert.equal(await buttons.count(), 1);
  const opened = await followApproval(host, approvalUrl);
  assert.deepEqual(host.links, [approvalUrl]);
  assert.equal(
    new URL(opened.url()).searchParams.get("return_to"),
    new URL(approvalUrl).pathname,
    "the approval page asks the owner to sign in first",
  );
  await screenshotView(host, "carousel-approval");

  const op = await app.ctx
    .db("operations")
    .where({ id: result.structuredContent.operation_id })
    .first("state");
  assert.equal(op.state, "approval_required", "the view approved nothing");
  assert.ok(host.calls.every((c) => TOOLS_BY_NAME.get(c.name)!.access === "read"));
  assert.deepEqual(host.errors, []);
  assert.deepEqual(requestsOutside(host, [MEDIA]), []);
});
