/**
 * The video view (ui://social-mcp/video) in a real MCP Apps host (official AppBridge, sandboxed iframe,
 * headless Chromium; test/helpers/app-host.ts) with real results of the running service: run_automation's
 * view says what the run will do and costs; the person follows "Review and approve", signs in and approves
 * on the service's page; the worker renders the single-fade video with ffmpeg; get_automation_run's view
 * plays the 1080x1920 MP4 from a signed media URL (Chromium reads its metadata) with its duration and
 * template, and lists the post the run produced. No console error, no request outside the declared CSP, no
 * write tool called by the view.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import { grantCredits } from "../../src/domain/account/credits.ts";
import {
  appsWorld,
  followApproval,
  openAppHost,
  pollEverySecond,
  requestsOutside,
  screenshotView,
} from "../helpers/app-host.ts";
import { product } from "../tools/carousels/fixtures.ts";

const {
  app,
  browser,
  owner,
  client,
  media: MEDIA,
} = await appsWorld({
  app: { worker: true },
  plan: "pro",
  scopes: ["create:automations", "manage:automations", "read:automations", "read:content", "read:jobs"],
});
await grantCredits(app.ctx.db, owner.user_id, 500, "test:grant");
const productId = await product(app, owner, { name: "Night Balm" });

test("run_automation -> approval through the view's button -> get_automation_run plays the video", async () => {
  const created: any = await client.callTool("create_automation", {
    kind: "video",
    name: "Evening fade",
    configuration: { type: "fade-video", template_id: "single-fade", product_id: productId },
    idempotency_key: randomUUID(),
  });
  assert.equal(created.structuredContent.status, "succeeded", JSON.stringify(created.structuredContent));
  const automationId = created.structuredContent.data.automation_id as string;
  const args = { automation_id: automationId, idempotency_key: randomUUID() };
  const result: any = await client.callTool("run_automation", args);
  assert.equal(result.structuredContent.status, "approval_required");
  const uri = await client.viewOf("run_automation");
  assert.equal(uri, "ui://social-mcp/video");
  const { html, csp } = await client.readView(uri);

  const host = await openAppHost(browser, client.callTool);
  await host.show({ html, csp, toolName: "run_automation", args, result, hostContext: { theme: "light" } });
  const block = host.view.locator("section.approval");
  await block.waitFor();
  assert.match((await host.view.locator("h1").textContent()) ?? "", /Evening fade/);
  assert.match(
    (await host.view.locator("header").textContent()) ?? "",
    /video automation · template single-fade/,
  );
  assert.match(
    (await block.textContent()) ?? "",
    /Run the video automation “Evening fade” once now; it costs 5 credits\./,
  );
  await screenshotView(host, "video-approval");

  await followApproval(host, result.structuredContent.approval_url, owner);
  assert.deepEqual(host.links, [result.structuredContent.approval_url]);

  const job: any = await pollEverySecond(
    () => client.callTool("get_job_status", { operation_id: result.structuredContent.operation_id }),
    (r: any) =>
      r.structuredContent.status === "failed" ||
      ["succeeded", "failed", "outcome_unknown"].includes(r.structuredContent.data?.status),
  );
  assert.equal(job.structuredContent.data?.status, "succeeded", JSON.stringify(job.structuredContent));
  const runArgs = { kind: "video", run_id: job.structuredContent.data.result.run_id };
  const run: any = await client.callTool("get_automation_run", runArgs);
  assert.equal(run.structuredContent.data.status, "succeeded");
  const clip = run.structuredContent.data.video;

  const runHost = await openAppHost(browser, client.callTool, { width: 390, height: 844 });
  await runHost.show({
    html,
    csp,
    toolName: "get_automation_run",
    args: runArgs,
    result: run,
    hostContext: { theme: "dark" },
  });
  const player = runHost.view.locator("figure.video video");
  await player.waitFor();
  // Chromium reads the MP4 from the signed URL up to its first frame (readyState HAVE_CURRENT_DATA or more).
  const read = () =>
    player.evaluate((v) => {
      const video = v as HTMLVideoElement;
      return {
        ready: video.readyState,
        error: video.error?.code ?? null,
        meta: [video.duration, video.videoWidth, video.videoHeight],
      };
    });
  let state = await read();
  for (let i = 0; i < 300 && state.ready < 2 && state.error === null; i++) {
    await new Promise((r) => setTimeout(r, 100));
    state = await read();
  }
  assert.equal(state.error, null, "the video loads");
  const meta = state.meta;
  assert.ok(
    Math.abs(meta[0]! - clip.duration_seconds) < 0.2,
    `duration ${meta[0]} vs ${clip.duration_seconds}`,
  );
  assert.deepEqual(meta.slice(1), [1080, 1920]);
  assert.ok((await player.getAttribute("src"))!.startsWith(`${MEDIA}${clip.asset_id}?exp=`));
  const seconds = Math.round(clip.duration_seconds);
  // The offline local providers made its frame and hook: the caption says so beside the duration.
  assert.match(
    (await runHost.view.locator("figcaption").textContent()) ?? "",
    new RegExp(`^0:${String(seconds).padStart(2, "0")} · 1080×1920 · single-fadelocal stand-in$`),
  );
  assert.equal(await runHost.view.locator("figcaption .stand-in").textContent(), "local stand-in");
  assert.match((await runHost.view.locator("header").textContent()) ?? "", /5 credits charged · manual run/);
  const posts = runHost.view.locator("ul.posts > li");
  assert.equal(await posts.count(), 1);
  assert.equal(await posts.first().getAttribute("data-post"), run.structuredContent.data.post_id);
  assert.match((await posts.first().textContent()) ?? "", /^video post /);
  await screenshotView(runHost, "video");

  for (const h of [host, runHost]) {
    assert.deepEqual(h.errors, []);
    assert.deepEqual(requestsOutside(h, [MEDIA]), []);
    assert.ok(
      h.calls.every((c) => TOOLS_BY_NAME.get(c.name)!.access === "read"),
      JSON.stringify(h.calls),
    );
  }
});
