import assert from "node:assert/strict";
import { test } from "node:test";
import { carouselPrice, carouselWithCtaPrice, PRICES, videoPrice } from "../../src/domain/account/prices.ts";
import {
  assertAutomationSlot,
  assertWorkspaceSlot,
  automationSlots,
  ownedWorkspaces,
} from "../../src/domain/account/quotas.ts";
import { freshDatabase } from "../helpers/db.ts";
import { createUser } from "../../src/domain/account/accounts.ts";

const { db } = await freshDatabase();

async function automation(userId: string, workspaceId: string, kind: "video" | "carousel", deleted = false) {
  await db("automations").insert({
    user_id: userId,
    workspace_id: workspaceId,
    kind,
    name: `${kind} automation`,
    configuration: JSON.stringify({}),
    deleted_at: deleted ? new Date() : null,
  });
}

test("prices follow service spec 8", () => {
  assert.equal(PRICES.generated_image, 5);
  assert.equal(carouselPrice(6), 30);
  assert.equal(videoPrice("2x2-grid"), 20);
  assert.equal(videoPrice("single-fade"), 5);
  assert.equal(carouselWithCtaPrice(6), 25);
  assert.equal(videoPrice("ugc-video"), 10);
});

test("automation slots are shared account-wide across workspaces and kinds, drafts included", async () => {
  const u = await createUser(db, { email: "q1@example.test", password: "long enough pw", workspace: "W1" });
  const [w2] = await db("workspaces").insert({ name: "W2", owner_user_id: u.user_id }).returning("id");
  await db("memberships").insert({ workspace_id: w2.id, user_id: u.user_id, role: "owner" });
  assert.deepEqual(await automationSlots(db, u.user_id), { used: 0, allowed: 2 });
  await automation(u.user_id, u.workspace_id, "video");
  await automation(u.user_id, w2.id, "carousel", true);
  assert.deepEqual(await automationSlots(db, u.user_id), { used: 1, allowed: 2 });
  await db.transaction((trx) => assertAutomationSlot(trx, u.user_id));
  await automation(u.user_id, w2.id, "carousel");
  await assert.rejects(
    db.transaction((trx) => assertAutomationSlot(trx, u.user_id)),
    (err: any) => err.code === "forbidden" && err.details.used === 2 && err.details.allowed === 2,
  );
  assert.deepEqual(await ownedWorkspaces(db, u.user_id), { used: 2, allowed: 2 });
  await assert.rejects(
    db.transaction((trx) => assertWorkspaceSlot(trx, u.user_id)),
    { code: "forbidden" },
  );
});

test("pro is unlimited; growth allows 6 automations", async () => {
  const pro = await createUser(db, {
    email: "q2@example.test",
    password: "long enough pw",
    workspace: "P",
    plan: "pro",
  });
  for (let i = 0; i < 8; i++) await automation(pro.user_id, pro.workspace_id, "video");
  assert.deepEqual(await automationSlots(db, pro.user_id), { used: 8, allowed: null });
  await db.transaction((trx) => assertAutomationSlot(trx, pro.user_id));
  const growth = await createUser(db, {
    email: "q3@example.test",
    password: "long enough pw",
    workspace: "G",
    plan: "growth",
  });
  assert.deepEqual(await automationSlots(db, growth.user_id), { used: 0, allowed: 6 });
  assert.deepEqual(await ownedWorkspaces(db, growth.user_id), { used: 1, allowed: null });
});
