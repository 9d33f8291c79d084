/**
 * The approval page warns per destination (docs/social.md "Network rules"): approve_carousel's description
 * lists what the owner's connected networks would refuse of the carousel as it is (the rule table's checks of
 * src/domain/social/validate.ts `postProblems`: a story-format carousel is outside Instagram's 4:5 to 1.91:1,
 * a caption over X's 280), and the page shows that list, escaped.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import type { OperationRow } from "../../src/domain/operations/store.ts";
import { handler as approveHandler } from "../../src/tools/carousels/approve_carousel.ts";
import { handler as generateHandler } from "../../src/tools/carousels/generate_carousel.ts";
import type { ApprovalDescription } from "../../src/tool-contract.ts";
import { renderApprovalPage } from "../../src/web/approval-page.ts";
import { account, key, named, product, queued, setup, toolContext } from "../tools/carousels/fixtures.ts";

const approve = named("approve_carousel", approveHandler);
const generate = named("generate_carousel", generateHandler);
const { app, me } = await setup();

/** The approval page of an approve_carousel request that waits for a decision. */
const render = (description: ApprovalDescription): string =>
  renderApprovalPage({
    op: {
      id: randomUUID(),
      tool: "approve_carousel",
      state: "approval_required",
      created_at: new Date(),
      approval_expires_at: new Date(Date.now() + 600_000),
    } as unknown as OperationRow,
    toolTitle: "Approve carousel",
    clientName: "Agent",
    clientVerified: true,
    description,
    csrfToken: "t",
    now: new Date(),
  });

test("approve_carousel: a story-format carousel warns that Instagram refuses 9:16 feed images; the page lists it", async () => {
  await account(app, me, "instagram", "Shop <Insta>");
  await account(app, me, "facebook", "Shop FB");
  const productId = await product(app, me);
  const { accepted } = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 4,
    design_id: "split-frame",
    format: "story",
    idempotency_key: key(),
  });
  const postId = accepted.data.post_id;
  const description = await approve.describe!(
    { post_id: postId, idempotency_key: key() },
    toolContext(app, me),
  );
  assert.equal(description.warnings?.length, 1, "Facebook takes any ratio: only Instagram warns");
  const [insta] = description.warnings!;
  assert.equal(insta!.destination, "Shop <Insta>");
  assert.equal(insta!.network, "Instagram");
  assert.equal(insta!.problems.length, 4, "one per slide");
  assert.match(
    insta!.problems[0]!,
    /^item 1 is 1080x1920 pixels, ratio 0\.56:1 \(9:16\); Instagram accepts carousel images of 4:5 to 1\.91:1 only$/,
  );

  const page = render(description);
  const block = /<section id="warnings"[^>]*>([\s\S]*?)<\/section>/.exec(page)?.[1] ?? "";
  assert.match(block, /<h2 id="warnings-title">Warnings<\/h2>/);
  assert.match(
    block,
    /<li><strong>Shop &lt;Insta&gt;<\/strong> \(Instagram\)<ul><li>item 1 is 1080x1920 pixels[^<]*<\/li><li>item 2 /,
  );
  assert.ok(!block.includes("Shop FB"));

  // A portrait carousel fits everywhere: no warning block at all.
  const portrait = await queued(app, me, generate, {
    product_id: productId,
    slide_count: 4,
    design_id: "split-frame",
    format: "portrait",
    idempotency_key: key(),
  });
  const fine = await approve.describe!(
    { post_id: portrait.accepted.data.post_id, idempotency_key: key() },
    toolContext(app, me),
  );
  assert.deepEqual(fine.warnings, []);
  assert.ok(!render(fine).includes('id="warnings"'));
});
