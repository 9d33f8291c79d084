/**
 * What an approval page shows (service spec 4.4; approvals stay honest): for schedule_post every picture of
 * the post, the full caption (not an excerpt), the destinations and the time; for enable/update/run of an
 * automation the configuration, destinations and daily times, and for an update each value as old -> new;
 * the client is marked unverified. The descriptions come from the real tools' `describe`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OperationRow } from "../../src/domain/operations/store.ts";
import { handler as createHandler } from "../../src/tools/automations/create_automation.ts";
import { handler as enableHandler } from "../../src/tools/automations/enable_automation.ts";
import { handler as runHandler } from "../../src/tools/automations/run_automation.ts";
import { handler as updateHandler } from "../../src/tools/automations/update_automation.ts";
import { handler as scheduleHandler } from "../../src/tools/social/schedule_post.ts";
import type { ApprovalDescription } from "../../src/tool-contract.ts";
import { renderApprovalPage } from "../../src/web/approval-page.ts";
import {
  account,
  inline,
  key,
  media,
  named,
  setupWithProduct,
  toolContext,
} from "../tools/carousels/fixtures.ts";

const create = named("create_automation", createHandler);
const { app, me, productId } = await setupWithProduct("growth", 10);

function render(description: ApprovalDescription, tool: string): string {
  const now = new Date();
  const op = {
    id: "00000000-0000-4000-8000-000000000001",
    tool,
    state: "approval_required",
    created_at: now,
    approval_expires_at: new Date(now.getTime() + 600_000),
  } as unknown as OperationRow;
  return renderApprovalPage({
    op,
    toolTitle: tool,
    clientName: "Helpful Agent",
    clientVerified: false,
    description,
    csrfToken: "t",
    now,
  });
}

test("schedule_post: the post's picture, the full caption, the destinations and the time", async () => {
  const insta = await account(app, me, "facebook", "Shop FB");
  const caption = `${"Long caption sentence about the serum. ".repeat(8)}#glow <b>bold?</b>`;
  const images = [await media(app, me, "image")];
  const [post] = await app.ctx
    .db("posts")
    .insert({
      user_id: me.user_id,
      workspace_id: me.workspace_id,
      type: "image",
      status: "draft",
      caption,
      media_asset_ids: JSON.stringify(images),
    })
    .returning("id");
  const at = new Date(Date.now() + 3 * 86400_000);
  const d = await scheduleHandler.describe!(
    {
      post_id: post.id,
      social_account_ids: [insta],
      scheduled_for: at.toISOString(),
      idempotency_key: key(),
    } as any,
    toolContext(app, me),
  );
  const html = render(d, "schedule_post");
  for (const id of images) assert.ok(html.includes(`src="/media/${id}/file"`));
  assert.ok(caption.length > 300);
  assert.ok(html.includes("Long caption sentence about the serum. ".repeat(8).trim()), "the whole caption");
  assert.ok(html.includes("&lt;b&gt;bold?&lt;/b&gt;"), "escaped, inert");
  assert.match(html, /Shop FB \(facebook\)/);
  assert.ok(html.includes(at.toISOString()));
  assert.match(html, /id="client-unverified"/);
});

test("automation pages: enable shows configuration, destinations and daily times; update shows old -> new", async () => {
  const insta = await account(app, me, "instagram", "Brand IG");
  const fb = await account(app, me, "facebook", "Brand FB");
  const a = await inline(app, me, create, {
    kind: "carousel",
    name: "Morning carousel",
    configuration: {
      product_id: productId,
      design_id: "bold-minimal",
      slide_count: 4,
      social_account_ids: [insta, fb],
    },
    daily_times: ["09:00", "18:30"],
    time_zone: "Europe/Paris",
    idempotency_key: key(),
  } as any);
  const id = a.data.automation_id;

  const enabled = render(
    await enableHandler.describe!({ automation_id: id, idempotency_key: key() }, toolContext(app, me)),
    "enable_automation",
  );
  assert.match(enabled, /Brand IG \(instagram\), Brand FB \(facebook\)/);
  assert.match(enabled, /daily at 09:00, 18:30 \(Europe\/Paris\)/);
  assert.match(enabled, /design id<\/th><td>bold-minimal/);
  assert.match(enabled, /slide count<\/th><td>4/);

  const ran = render(
    await runHandler.describe!({ automation_id: id, idempotency_key: key() }, toolContext(app, me)),
    "run_automation",
  );
  assert.match(ran, /Brand FB \(facebook\)/);
  assert.match(ran, /slide count<\/th><td>4/);

  const updated = render(
    await updateHandler.describe!(
      { automation_id: id, daily_times: ["20:00"], name: "Evening carousel", idempotency_key: key() },
      toolContext(app, me),
    ),
    "update_automation",
  );
  assert.match(updated, /<del>Morning carousel<\/del> → Evening carousel/);
  assert.match(updated, /<del>09:00, 18:30<\/del> → 20:00/);
  assert.match(updated, /Time zone<\/th><td>Europe\/Paris/, "unchanged values are shown without a strike");
  assert.match(updated, /daily at 20:00 \(Europe\/Paris\)/);
});
