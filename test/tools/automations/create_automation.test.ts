/** create_automation, list/get, update/enable/disable/delete (review) and the account-wide slot quota. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createAutomation } from "../../../src/domain/automations/automations.ts";
import { handler as createHandler } from "../../../src/tools/automations/create_automation.ts";
import { handler as deleteHandler } from "../../../src/tools/automations/delete_automation.ts";
import { handler as disableHandler } from "../../../src/tools/automations/disable_automation.ts";
import { handler as enableHandler } from "../../../src/tools/automations/enable_automation.ts";
import { handler as getHandler } from "../../../src/tools/automations/get_automation.ts";
import { handler as listHandler } from "../../../src/tools/automations/list_automations.ts";
import { handler as updateHandler } from "../../../src/tools/automations/update_automation.ts";
import {
  assertSchema,
  inline,
  key,
  media,
  named,
  product,
  reviewed,
  setupWithProduct,
  toolContext,
  toolError,
} from "../carousels/fixtures.ts";

const create = named("create_automation", createHandler);
const get = named("get_automation", getHandler);
const list = named("list_automations", listHandler);
const update = named("update_automation", updateHandler);
const enable = named("enable_automation", enableHandler);
const disable = named("disable_automation", disableHandler);
const remove = named("delete_automation", deleteHandler);

const { app, me, other, peer, productId, cta } = await setupWithProduct("growth", 10);

const ugc = (extra: Record<string, unknown> = {}) => ({
  kind: "video" as const,
  name: "Daily UGC",
  configuration: {
    type: "ugc-video" as const,
    template_id: "ugc-video" as const,
    product_id: productId,
    caption_tone: "friendly" as const,
  },
  cta_asset_id: cta,
  daily_times: ["18:30", "09:00"],
  time_zone: "Europe/Paris",
  idempotency_key: key(),
  ...extra,
});

test("create_automation saves a draft with sorted daily times; get and list read it", async () => {
  const out = await inline(app, me, create, ugc());
  assert.equal(out.data.status, "draft");
  assert.equal(out.data.kind, "video");
  assert.deepEqual(out.data.daily_times, ["09:00", "18:30"]);
  assert.equal(out.data.cta_asset_id, cta);
  const got = await inline(app, me, get, { automation_id: out.data.automation_id });
  assert.deepEqual(got.data, out.data);
  const listed = await inline(app, me, list, { kind: "video", status: "draft" });
  assert.ok(listed.data.items.some((a) => a.automation_id === out.data.automation_id));
  for (const who of [other, peer]) {
    assert.equal(
      (await toolError(inline(app, who, get, { automation_id: out.data.automation_id }))).code,
      "not_found",
    );
    assert.ok(
      !(await inline(app, who, list, {})).data.items.some((a) => a.automation_id === out.data.automation_id),
    );
  }
  await remove.execute(
    { automation_id: out.data.automation_id, idempotency_key: key() },
    toolContext(app, me),
  );
});

test("carousel and grid automations validate product, design and slide count", async () => {
  const carousel = await inline(app, me, create, {
    kind: "carousel",
    name: "Weekly carousel",
    configuration: { product_id: productId, design_id: "product-showcase", slide_count: 6 },
    idempotency_key: key(),
  });
  assert.equal((carousel.data.configuration as { format?: string }).format, "square");
  const bad = await toolError(
    inline(app, me, create, {
      kind: "carousel",
      name: "Bad",
      configuration: { product_id: productId, design_id: "product-showcase", slide_count: 5 },
      idempotency_key: key(),
    }),
  );
  assert.equal(bad.code, "validation_failed");
  const foreign = await product(app, other);
  const nf = await toolError(
    inline(app, me, create, {
      kind: "video",
      name: "G",
      configuration: { type: "grid-video", template_id: "2x2-grid", product_id: foreign },
      idempotency_key: key(),
    }),
  );
  assert.equal(nf.code, "not_found");
  for (const a of [carousel.data.automation_id])
    await remove.execute({ automation_id: a, idempotency_key: key() }, toolContext(app, me));
});

test("the CTA video must be an owned stored video of 3 to 15 seconds, required for ugc-video", async () => {
  const short = await media(app, me, "video", 2.5);
  const long = await media(app, me, "video", 15.5);
  const unknown = await media(app, me, "video", null);
  const image = await media(app, me, "image");
  for (const id of [short, long, unknown, image]) {
    const err = await toolError(inline(app, me, create, ugc({ cta_asset_id: id })));
    assert.equal(err.code, "validation_failed");
    assert.match(err.message, id === image ? /stored video/ : /3 to 15 seconds/);
  }
  const { cta_asset_id: _omit, idempotency_key: _key, ...noCta } = ugc();
  assert.throws(
    () => assertSchema("create_automation", "input", { ...noCta, idempotency_key: key() }),
    /does not conform/,
  );
  const domain = await toolError(
    app.ctx.db.transaction((trx) =>
      createAutomation(trx, { userId: me.user_id, workspaceId: me.workspace_id }, noCta, new Date()),
    ),
  );
  assert.match(domain.message, /required for ugc-video/);
  const theirs = await media(app, other, "video", 10);
  assert.equal((await toolError(inline(app, me, create, ugc({ cta_asset_id: theirs })))).code, "not_found");
  for (const seconds of [3, 15]) {
    const ok = await inline(app, me, create, ugc({ cta_asset_id: await media(app, me, "video", seconds) }));
    await remove.execute(
      { automation_id: ok.data.automation_id, idempotency_key: key() },
      toolContext(app, me),
    );
  }
});

test("a template that does not match the video type is refused by the domain too", async () => {
  const err = await toolError(
    app.ctx.db.transaction((trx) =>
      createAutomation(
        trx,
        { userId: me.user_id, workspaceId: me.workspace_id },
        {
          kind: "video",
          name: "x",
          configuration: { type: "grid-video", template_id: "single-fade", product_id: productId },
        },
        new Date(),
      ),
    ),
  );
  assert.equal(err.code, "validation_failed");
});

test("automation slots are shared account-wide across workspaces and freed by delete", async () => {
  const creator = await app.user({ plan: "creator" });
  const p = await product(app, creator);
  const [ws2] = await app.ctx
    .db("workspaces")
    .insert({ name: "Second", owner_user_id: creator.user_id })
    .returning("id");
  await app.ctx.db("memberships").insert({ workspace_id: ws2.id, user_id: creator.user_id, role: "owner" });
  const second = { ...creator, workspace_id: ws2.id };
  const p2 = await product(app, second);
  const grid = (pid: string) => ({
    kind: "video" as const,
    name: "Grid",
    configuration: { type: "grid-video" as const, template_id: "2x2-grid" as const, product_id: pid },
    idempotency_key: key(),
  });
  const a1 = await inline(app, creator, create, grid(p));
  await inline(app, second, create, grid(p2));
  const full = await toolError(inline(app, creator, create, grid(p)));
  assert.equal(full.code, "forbidden");
  assert.match(full.message, /allows 2 automations and 2 are in use/);
  await reviewed(app, creator, remove, { automation_id: a1.data.automation_id, idempotency_key: key() });
  await inline(app, creator, create, grid(p));
});

test("Growth allows 6 automations: the 7th create_automation is refused (service spec 8)", async () => {
  const growth = await app.user({ plan: "growth" });
  const p = await product(app, growth);
  const grid = () => ({
    kind: "video" as const,
    name: "Grid",
    configuration: { type: "grid-video" as const, template_id: "2x2-grid" as const, product_id: p },
    idempotency_key: key(),
  });
  for (let i = 0; i < 6; i++) await inline(app, growth, create, grid());
  const seventh = await toolError(inline(app, growth, create, grid()));
  assert.equal(seventh.code, "forbidden");
  assert.match(seventh.message, /allows 6 automations and 6 are in use/);
  assert.equal(
    (await app.ctx.db("automations").where({ user_id: growth.user_id }).whereNull("deleted_at")).length,
    6,
    "nothing saved",
  );
});

test("update_automation validates at call time and applies after approval; the kind never changes", async () => {
  const a = await inline(app, me, create, ugc());
  const { description, result } = await reviewed(app, me, update, {
    automation_id: a.data.automation_id,
    name: "Evening UGC",
    daily_times: ["20:00"],
    idempotency_key: key(),
  });
  assert.match(description.summary, /Change the video automation “Daily UGC”: name, daily times/);
  assert.deepEqual(description.resources, [
    { kind: "automation", id: a.data.automation_id, label: "Daily UGC" },
  ]);
  assert.equal(result.data.name, "Evening UGC");
  assert.deepEqual(result.data.daily_times, ["20:00"]);
  const noCta = await toolError(
    update.describe!(
      { automation_id: a.data.automation_id, cta_asset_id: null, idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(noCta.code, "validation_failed");
  const tz = await toolError(
    update.describe!(
      { automation_id: a.data.automation_id, time_zone: "Mars/Olympus", idempotency_key: key() },
      toolContext(app, me),
    ),
  );
  assert.equal(tz.code, "validation_failed");
  for (const who of [other, peer]) {
    const err = await toolError(
      update.describe!(
        { automation_id: a.data.automation_id, name: "x", idempotency_key: key() },
        toolContext(app, who),
      ),
    );
    assert.equal(err.code, "not_found");
  }
  await remove.execute({ automation_id: a.data.automation_id, idempotency_key: key() }, toolContext(app, me));
});

test("enable, disable and delete go through describe + execute and are owner-only", async () => {
  const a = await inline(app, me, create, ugc());
  const id = a.data.automation_id;
  for (const [h, tool] of [
    [enable, "enable"],
    [disable, "disable"],
    [remove, "delete"],
  ] as const) {
    for (const who of [other, peer]) {
      const err = await toolError(
        h.describe!({ automation_id: id, idempotency_key: key() }, toolContext(app, who)),
      );
      assert.equal(err.code, "not_found", tool);
    }
  }
  const en = await reviewed(app, me, enable, { automation_id: id, idempotency_key: key() });
  assert.match(en.description.summary, /^Enable the video automation “Daily UGC”/);
  assert.deepEqual(en.result.data, { automation_id: id, status: "enabled" });
  const dis = await reviewed(app, me, disable, { automation_id: id, idempotency_key: key() });
  assert.deepEqual(dis.result.data, { automation_id: id, status: "disabled" });
  // Enabling re-validates: a CTA video that got too long since the draft blocks it.
  await app.ctx.db("media_assets").where({ id: cta }).update({ duration_seconds: 20 });
  assert.equal(
    (await toolError(enable.execute({ automation_id: id, idempotency_key: key() }, toolContext(app, me))))
      .code,
    "validation_failed",
  );
  await app.ctx.db("media_assets").where({ id: cta }).update({ duration_seconds: 10 });
  const del = await reviewed(app, me, remove, { automation_id: id, idempotency_key: key() });
  assert.deepEqual(del.result.data, { automation_id: id, deleted: true });
  assert.equal((await toolError(inline(app, me, get, { automation_id: id }))).code, "not_found");
});
