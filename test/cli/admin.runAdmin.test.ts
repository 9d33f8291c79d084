import assert from "node:assert/strict";
import { test } from "node:test";
import { runAdmin } from "../../src/cli/admin.ts";
import { creditBalance } from "../../src/domain/account/credits.ts";
import { freshDatabase } from "../helpers/db.ts";

const { db } = await freshDatabase();

test("admin user create makes a user, an owned workspace, a plan and starting credits", async () => {
  const out = (await runAdmin(db, [
    "user",
    "create",
    "--email",
    "Ada@Example.test",
    "--password",
    "long enough pw",
    "--workspace",
    "Studio",
    "--plan",
    "pro",
  ])) as {
    user_id: string;
    workspace_id: string;
  };
  const user = await db("users").where({ id: out.user_id }).first();
  assert.equal(user.email, "Ada@Example.test");
  assert.match(user.password_hash, /^\$argon2id\$/);
  const m = await db("memberships").where({ user_id: out.user_id, workspace_id: out.workspace_id }).first();
  assert.equal(m.role, "owner");
  assert.equal((await db("subscriptions").where({ user_id: out.user_id }).first()).plan, "pro");
  assert.equal(await creditBalance(db, out.user_id), 1000);
});

test("admin user create refuses a duplicate email and a bad plan", async () => {
  await assert.rejects(
    runAdmin(db, [
      "user",
      "create",
      "--email",
      "ada@example.test",
      "--password",
      "long enough pw",
      "--workspace",
      "X",
    ]),
    /already exists/,
  );
  await assert.rejects(
    runAdmin(db, [
      "user",
      "create",
      "--email",
      "b@example.test",
      "--password",
      "long enough pw",
      "--workspace",
      "X",
      "--plan",
      "gold",
    ]),
    /--plan must be one of/,
  );
  await assert.rejects(runAdmin(db, ["user", "create", "--email", "b@example.test"]), /missing --password/);
});

test("admin workspace add-member and credits grant", async () => {
  const owner = (await runAdmin(db, [
    "user",
    "create",
    "--email",
    "o@example.test",
    "--password",
    "long enough pw",
    "--workspace",
    "Team",
  ])) as {
    workspace_id: string;
  };
  await runAdmin(db, [
    "user",
    "create",
    "--email",
    "m@example.test",
    "--password",
    "long enough pw",
    "--workspace",
    "Own",
  ]);
  const added = (await runAdmin(db, [
    "workspace",
    "add-member",
    "--workspace-id",
    owner.workspace_id,
    "--email",
    "m@example.test",
  ])) as {
    user_id: string;
  };
  const m = await db("memberships")
    .where({ user_id: added.user_id, workspace_id: owner.workspace_id })
    .first();
  assert.equal(m.role, "member");
  const granted = (await runAdmin(db, [
    "credits",
    "grant",
    "--email",
    "m@example.test",
    "--credits",
    "50",
  ])) as { balance: number };
  assert.equal(granted.balance, 150);
  await assert.rejects(
    runAdmin(db, ["credits", "grant", "--email", "m@example.test", "--credits", "0"]),
    /positive integer/,
  );
});
