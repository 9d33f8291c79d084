import assert from "node:assert/strict";
import { test } from "node:test";
import { runAdmin } from "../../src/cli/admin.ts";
import { createUser } from "../../src/domain/account/accounts.ts";
import { createWorkspace } from "../../src/domain/account/workspaces.ts";
import { ToolError } from "../../src/errors.ts";
import { freshDatabase } from "../helpers/db.ts";

const { db } = await freshDatabase();

const owned = async (userId: string) =>
  Number((await db("workspaces").where({ owner_user_id: userId }).count({ n: "*" }).first())?.n);

test("Creator owns at most 2 workspaces: the third is refused with forbidden and nothing is written", async () => {
  const u = await createUser(db, { email: "ws1@example.test", password: "long enough pw", workspace: "One" });
  const second = await createWorkspace(db, u.user_id, "Two");
  const m = await db("memberships").where({ workspace_id: second.workspace_id, user_id: u.user_id }).first();
  assert.equal(m.role, "owner");
  await assert.rejects(
    createWorkspace(db, u.user_id, "Three"),
    (err: unknown) =>
      err instanceof ToolError &&
      err.code === "forbidden" &&
      /creator plan allows 2 owned workspaces/.test(err.message) &&
      (err.details as { quota: string; used: number; allowed: number }).quota === "owned_workspaces" &&
      (err.details as { used: number }).used === 2,
  );
  assert.equal(await owned(u.user_id), 2);
});

test("concurrent creations cannot both pass the Creator limit", async () => {
  const u = await createUser(db, { email: "ws2@example.test", password: "long enough pw", workspace: "One" });
  const results = await Promise.allSettled([
    createWorkspace(db, u.user_id, "A"),
    createWorkspace(db, u.user_id, "B"),
    createWorkspace(db, u.user_id, "C"),
  ]);
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  assert.equal(await owned(u.user_id), 2);
});

test("Growth is unlimited", async () => {
  const u = await createUser(db, {
    email: "ws3@example.test",
    password: "long enough pw",
    workspace: "One",
    plan: "growth",
  });
  for (const name of ["Two", "Three", "Four"]) await createWorkspace(db, u.user_id, name);
  assert.equal(await owned(u.user_id), 4);
});

test("`admin workspace create` enforces the plan's limit", async () => {
  await createUser(db, { email: "ws4@example.test", password: "long enough pw", workspace: "One" });
  const out = (await runAdmin(db, [
    "workspace",
    "create",
    "--email",
    "ws4@example.test",
    "--name",
    "Two",
  ])) as {
    workspace_id: string;
  };
  assert.match(out.workspace_id, /^[0-9a-f-]{36}$/);
  await assert.rejects(
    runAdmin(db, ["workspace", "create", "--email", "ws4@example.test", "--name", "Three"]),
    { code: "forbidden" },
  );
  await assert.rejects(
    runAdmin(db, ["workspace", "create", "--email", "nobody@example.test", "--name", "X"]),
    /no user with email/,
  );
});
