/**
 * The four account tools (service spec 4.3, 8): get_profile, get_workspace, get_credit_balance and
 * get_account_settings, called through the real endpoint, pipeline and generated registry, so every answer
 * is also checked against the catalog's envelope schema before it is sent.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addMember } from "../../../src/domain/account/accounts.ts";
import { grantCredits } from "../../../src/domain/account/credits.ts";
import { startTestApp } from "../../helpers/app.ts";
import { rpc } from "../../helpers/mcp-client.ts";
import { connect } from "../../helpers/tokens.ts";

const app = await startTestApp({ queue: false, env: { RATE_LIMIT_WRITES: "31" } });
const ep = {
  url: app.resource,
  connect: (who: { user_id: string; workspace_id: string }, scopes: string[]) => connect(app, who, scopes),
};

async function call(token: string, name: string) {
  const r = await rpc(ep.url, "tools/call", { name, arguments: {} }, { token });
  assert.equal(r.status, 200);
  assert.equal(r.body.result.isError, undefined, JSON.stringify(r.body.result.structuredContent));
  return r.body.result.structuredContent.data;
}

describe("account tools", () => {
  it("get_profile returns the user behind the token, with the time zone to schedule in", async () => {
    const user = await app.user({ displayName: "Grace", plan: "growth" });
    const { token } = await ep.connect(user, ["read:profile"]);
    assert.deepEqual(await call(token, "get_profile"), {
      user_id: user.user_id,
      email: user.email,
      display_name: "Grace",
      plan: "growth",
      time_zone: "UTC",
    });
    await app.ctx.db("users").where({ id: user.user_id }).update({ time_zone: "Europe/Paris" });
    assert.equal((await call(token, "get_profile")).time_zone, "Europe/Paris");
  });

  it("get_workspace returns the workspace chosen at consent and the user's role there", async () => {
    const user = await app.user();
    const owner = await app.user({ workspace: "Team space" });
    await addMember(app.ctx.db, owner.workspace_id, user.email);
    const own = await ep.connect(user, ["read:workspace"]);
    assert.deepEqual(await call(own.token, "get_workspace"), {
      workspace_id: user.workspace_id,
      name: expect(await app.ctx.db("workspaces").where({ id: user.workspace_id }).first()).name,
      role: "owner",
    });
    const team = await ep.connect({ user_id: user.user_id, workspace_id: owner.workspace_id }, [
      "read:workspace",
    ]);
    assert.deepEqual(await call(team.token, "get_workspace"), {
      workspace_id: owner.workspace_id,
      name: "Team space",
      role: "member",
    });
  });

  it("get_credit_balance returns the ledger balance in credits", async () => {
    const user = await app.user({ plan: "creator" });
    const { token } = await ep.connect(user, ["read:profile"]);
    assert.deepEqual(await call(token, "get_credit_balance"), { balance: 100, plan: "creator" });
    await grantCredits(app.ctx.db, user.user_id, 25, "grant:test");
    assert.deepEqual(await call(token, "get_credit_balance"), { balance: 125, plan: "creator" });
  });

  it("get_account_settings returns the plan, live quotas, budgets and prices", async () => {
    const user = await app.user({ plan: "creator" });
    const { token } = await ep.connect(user, ["read:profile"]);
    const automation = (deleted: boolean) => ({
      workspace_id: user.workspace_id,
      user_id: user.user_id,
      kind: "carousel",
      name: "daily",
      configuration: JSON.stringify({}),
      deleted_at: deleted ? new Date() : null,
    });
    await app.ctx.db("automations").insert([automation(false), automation(true)]);
    await app.ctx.db("workspaces").insert({ name: "Second", owner_user_id: user.user_id });
    const data = await call(token, "get_account_settings");
    assert.deepEqual(data, {
      plan: "creator",
      quotas: { owned_workspaces: { used: 2, allowed: 2 }, automations: { used: 1, allowed: 2 } },
      rate_limits: { read: 120, write: 31, ai: 5, approval: 5, delete: 3 },
      credit_prices: { generated_image: 5, grid_video: 20, fade_video: 5, ugc_video: 10 },
    });
    const pro = await app.user({ plan: "pro" });
    const p = await ep.connect(pro, ["read:profile"]);
    const proData = await call(p.token, "get_account_settings");
    assert.deepEqual(proData.quotas, {
      owned_workspaces: { used: 1, allowed: null },
      automations: { used: 0, allowed: null },
    });
  });
});

function expect<T>(v: T | undefined): T {
  assert.ok(v);
  return v;
}
