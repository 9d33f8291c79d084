/** The operator command `admin social connect` and the sealed storage of provider credentials. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runAdmin } from "../../src/cli/admin.ts";
import { UsageError } from "../../src/cli/args.ts";
import { listSocialAccounts } from "../../src/domain/social/accounts.ts";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({ queue: false });
const me = await app.user();
const stranger = await app.user();

test("admin social connect records a connected account for a member of the workspace", async () => {
  const out = (await runAdmin(
    app.ctx.db,
    [
      "social",
      "connect",
      "--workspace-id",
      me.workspace_id,
      "--email",
      me.email,
      "--network",
      "pinterest",
      "--name",
      "Shop Pins",
      "--handle",
      "@pins",
    ],
    app.ctx,
  )) as Record<string, unknown>;
  assert.deepEqual(Object.keys(out).sort(), [
    "display_name",
    "handle",
    "network",
    "social_account_id",
    "status",
  ]);
  assert.equal(out.status, "connected");
  const row = await app.ctx.db("social_accounts").where({ id: out.social_account_id }).first();
  assert.equal(row.mode, "sandbox", "the operator command creates a sandbox account by default");
  assert.match(row.network_account_id, /^sandbox-/);
  assert.ok(row.access_token_sealed && !JSON.stringify(out).includes(row.access_token_sealed));
  const listed = await listSocialAccounts(app.ctx.db, { userId: me.user_id, workspaceId: me.workspace_id });
  assert.deepEqual(
    listed.map((a) => a.display_name),
    ["Shop Pins (Sandbox)"],
  );
});

test("admin social connect refuses bad networks, unknown users and non-members", async () => {
  const base = ["social", "connect", "--workspace-id", me.workspace_id, "--name", "N"];
  await assert.rejects(
    runAdmin(app.ctx.db, [...base, "--email", me.email, "--network", "myspace"]),
    UsageError,
  );
  await assert.rejects(
    runAdmin(app.ctx.db, [...base, "--email", "nobody@example.test", "--network", "x"]),
    /no user/,
  );
  await assert.rejects(
    runAdmin(app.ctx.db, [...base, "--email", stranger.email, "--network", "x"]),
    /not a member/,
  );
  await assert.rejects(runAdmin(app.ctx.db, ["social", "disconnect"]), UsageError);
});
