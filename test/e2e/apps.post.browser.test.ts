/**
 * The post view (ui://social-mcp/post) in a real MCP Apps host (official AppBridge, sandboxed iframe,
 * headless Chromium; test/helpers/app-host.ts) with real results of the running service:
 * - create_image_post: the two images (signed media URLs), one tab per network (no destination yet) with
 *   the caption cut where the network's limit cuts it (X: 280 of 300) and the rules the post breaks there;
 * - publish_post: what the approval will do (the destinations, only their networks' tabs) and the one
 *   "Review and approve" button; the person follows it, signs in and approves on the service's page, the
 *   worker publishes through the sandbox networks;
 * - list_deliveries: each delivery's state and its post_url, opened through the host.
 * The view never calls a write tool, logs no error and requests nothing but the service's signed media URLs.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import {
  appsWorld,
  followApproval,
  openAppHost,
  pollEverySecond,
  requestsOutside,
  screenshotView,
} from "../helpers/app-host.ts";
import { account, storedImage } from "../tools/carousels/fixtures.ts";

const {
  app,
  browser,
  owner,
  client,
  media: MEDIA,
} = await appsWorld({
  app: { worker: true },
  scopes: ["read:content", "create:content", "publish:content", "read:schedules", "read:jobs"],
});
const images = [await storedImage(app, owner, 640), await storedImage(app, owner, 480)];
const insta = await account(app, owner, "instagram", "Glow Shop");
const facebook = await account(app, owner, "facebook", "Glow Shop Page");

const readOnly = (calls: Array<{ name: string }>) =>
  calls.every((c) => TOOLS_BY_NAME.get(c.name)!.access === "read");

test("create_image_post's view: the images and the caption as each network cuts it", async () => {
  const caption = `New colours just landed. ${"Soft, bright and made to last. ".repeat(9)}`.trim();
  assert.equal([...caption].length, 303);
  const args = { media_asset_ids: images, caption, status: "draft", idempotency_key: randomUUID() };
  const result: any = await client.callTool("create_image_post", args);
  assert.equal(result.structuredContent.status, "succeeded");
  const uri = await client.viewOf("create_image_post");
  assert.equal(uri, "ui://social-mcp/post");
  const { html, csp } = await client.readView(uri);

  const host = await openAppHost(browser, client.callTool);
  await host.show({
    html,
    csp,
    toolName: "create_image_post",
    args,
    result,
    hostContext: { theme: "light" },
  });
  const pictures = host.view.locator(".media-strip img");
  await pictures.nth(1).waitFor();
  await host.view
    .locator(".media-strip")
    .evaluate((strip) =>
      Promise.all(Array.from(strip.querySelectorAll("img"), (i) => (i.complete ? null : i.decode()))),
    );
  const sizes = await pictures.evaluateAll((all) => all.map((i) => (i as HTMLImageElement).naturalWidth));
  assert.deepEqual(sizes, [640, 480]);

  const tabs = host.view.getByRole("tab");
  assert.deepEqual(await tabs.allTextContents(), [
    "Instagram",
    "TikTok",
    "Facebook",
    "YouTube",
    "LinkedIn",
    "Pinterest",
    "X",
  ]);
  const panel = host.view.getByRole("tabpanel");
  assert.match((await panel.textContent()) ?? "", /303 \/ 2200 characters/);
  assert.match((await panel.textContent()) ?? "", /Fits Instagram's rules/);

  await host.view.getByRole("tab", { name: "X" }).click();
  await host.view.locator('[role=tabpanel][data-network="x"]').waitFor();
  const kept = await panel.locator(".caption-text").evaluate((p) => p.firstChild?.textContent ?? "");
  const cut = await panel.locator("del.cut").textContent();
  assert.equal(kept + cut, caption);
  assert.equal(kept.length, 280);
  assert.match((await panel.textContent()) ?? "", /303 \/ 280 weighted characters · X cuts the last 23/);
  assert.match((await panel.locator(".problems").textContent()) ?? "", /X accepts at most 280/);
  await screenshotView(host, "post");

  await host.view.getByRole("tab", { name: "YouTube" }).click();
  assert.match((await panel.locator(".problems").textContent()) ?? "", /YouTube needs a video/);
  assert.deepEqual(host.errors, []);
  assert.deepEqual(requestsOutside(host, [MEDIA]), []);
  assert.ok(readOnly(host.calls));
});

test("publish_post's view: what the approval does, the person approves through its button, deliveries get their links", async () => {
  const created: any = await client.callTool("create_image_post", {
    media_asset_ids: [images[0]],
    caption: "Our summer sale starts Friday: 20% off everything.",
    status: "draft",
    idempotency_key: randomUUID(),
  });
  const postId = created.structuredContent.data.post_id as string;
  const args = { post_id: postId, social_account_ids: [insta, facebook], idempotency_key: randomUUID() };
  const result: any = await client.callTool("publish_post", args);
  assert.equal(
    result.structuredContent.status,
    "approval_required",
    JSON.stringify(result.structuredContent),
  );
  const { html, csp } = await client.readView("ui://social-mcp/post");

  const host = await openAppHost(browser, client.callTool, { width: 390, height: 844 });
  await host.show({ html, csp, toolName: "publish_post", args, result, hostContext: { theme: "light" } });
  const block = host.view.locator("section.approval");
  await block.waitFor();
  const text = (await block.textContent()) ?? "";
  assert.match(text, /Publish the image post “Our summer sale starts Friday/);
  assert.match(text, /Glow Shop \(Instagram\)/);
  assert.match(text, /Glow Shop Page \(Facebook\)/);
  assert.deepEqual(await host.view.getByRole("tab").allTextContents(), ["Instagram", "Facebook"]);
  await screenshotView(host, "post-approval");

  // The person follows the button: the host opens the approval page; they sign in and approve there.
  await followApproval(host, result.structuredContent.approval_url, owner);
  assert.deepEqual(host.links, [result.structuredContent.approval_url]);

  const listed: any = await pollEverySecond(
    () => client.callTool("list_deliveries", { post_id: postId }),
    (r: any) =>
      r.structuredContent.data.items.length === 2 &&
      r.structuredContent.data.items.every((d: { status: string }) => d.status === "published"),
  );
  const deliveriesHost = await openAppHost(browser, client.callTool);
  await deliveriesHost.show({
    html,
    csp,
    toolName: "list_deliveries",
    args: { post_id: postId },
    result: listed,
    hostContext: { theme: "light" },
  });
  const rows = deliveriesHost.view.locator("section.deliveries tbody tr");
  await rows.nth(1).waitFor();
  for (const d of listed.structuredContent.data.items) {
    const row = deliveriesHost.view.locator(`tr[data-delivery="${d.delivery_id}"]`);
    const label = { instagram: "Instagram", facebook: "Facebook" }[d.network as string];
    assert.match((await row.textContent()) ?? "", new RegExp(`^${label}published`));
    await row.getByRole("link", { name: "Open post" }).click();
  }
  assert.deepEqual(
    [...deliveriesHost.links].sort(),
    listed.structuredContent.data.items.map((d: { post_url: string }) => d.post_url).sort(),
  );
  await screenshotView(deliveriesHost, "post-deliveries");
  for (const h of [host, deliveriesHost]) {
    assert.deepEqual(h.errors, []);
    assert.deepEqual(requestsOutside(h, [MEDIA]), []);
    assert.ok(readOnly(h.calls), JSON.stringify(h.calls));
  }
});
