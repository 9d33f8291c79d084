import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { handler as getMedia } from "../../../src/tools/media/get_media.ts";
import { handler as listMedia } from "../../../src/tools/media/list_media.ts";
import { handler as searchMedia } from "../../../src/tools/media/search_media.ts";
import { startTestApp } from "../../helpers/app.ts";
import { asset, rejectsWith, toolCtx, world } from "../../domain/world.ts";
import { assertSchema } from "../carousels/fixtures.ts";

const app = await startTestApp({ queue: false });
const { a, b, c } = await world(app);

test("get_media returns the metadata by database id, never a path", async () => {
  const id = await asset(app, a, { kind: "video", title: "CTA clip", labels: ["cta", "summer"] });
  const { data } = await getMedia.execute({ asset_id: id }, toolCtx(app, a));
  assert.deepEqual(
    { ...data, created_at: typeof data.created_at },
    {
      asset_id: id,
      kind: "video",
      mime_type: "video/mp4",
      bytes: 1234,
      width: 64,
      height: 48,
      duration_seconds: 5.5,
      labels: ["cta", "summer"],
      title: "CTA clip",
      alt_text: null,
      created_at: "string",
    },
  );
  assert.ok(!JSON.stringify(data).includes("storage"));
});

test("list_media pages newest first, filters by kind", async () => {
  const u = await app.user();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(await asset(app, u, { title: `img ${i}` }));
  const vid = await asset(app, u, { kind: "video", title: "vid" });
  const p1 = await listMedia.execute({ limit: 2 }, toolCtx(app, u));
  assert.deepEqual(
    p1.data.items.map((m) => m.asset_id),
    [vid, ids[2]],
  );
  const p2 = await listMedia.execute({ limit: 2, cursor: p1.data.next_cursor! }, toolCtx(app, u));
  assert.deepEqual(
    p2.data.items.map((m) => m.asset_id),
    [ids[1], ids[0]],
  );
  assert.equal(p2.data.next_cursor, null);
  const videos = await listMedia.execute({ kind: "video" }, toolCtx(app, u));
  assert.deepEqual(
    videos.data.items.map((m) => m.asset_id),
    [vid],
  );
  await rejectsWith(listMedia.execute({ cursor: "bm90LWEtY3Vyc29y" }, toolCtx(app, u)), "validation_failed");
});

test("search_media matches titles and labels, ranked", async () => {
  const u = await app.user();
  const red = await asset(app, u, { title: "Red bottle", labels: ["bottle", "red"] });
  await asset(app, u, { title: "Blue mug", labels: ["mug"] });
  const { data } = await searchMedia.execute({ query: "red bottle" }, toolCtx(app, u));
  assert.deepEqual(
    data.items.map((m) => m.asset_id),
    [red],
  );
  assert.ok(data.items[0]!.rank > 0);
  assert.equal(
    (await searchMedia.execute({ query: "mug", kind: "video" }, toolCtx(app, u))).data.items.length,
    0,
  );
});

test("another member and another workspace's user get not_found / nothing", async () => {
  const id = await asset(app, a, { title: "A only" });
  for (const who of [b, c]) {
    await rejectsWith(getMedia.execute({ asset_id: id }, toolCtx(app, who)), "not_found");
    assert.ok(!(await listMedia.execute({}, toolCtx(app, who))).data.items.some((m) => m.asset_id === id));
    assert.equal((await searchMedia.execute({ query: "only" }, toolCtx(app, who))).data.items.length, 0);
  }
  await rejectsWith(getMedia.execute({ asset_id: randomUUID() }, toolCtx(app, a)), "not_found");
});

test("list_media, get_media and search_media return each asset's alt text (null when none), as their schemas say", async () => {
  const u = await app.user();
  const described = await asset(app, u, { title: "Green vase" });
  const bare = await asset(app, u, { title: "Green cup" });
  await app.ctx.db("media_assets").where({ id: described }).update({ alt_text: "A green vase on a shelf" });
  const one = await getMedia.execute({ asset_id: described }, toolCtx(app, u));
  assert.equal(one.data.alt_text, "A green vase on a shelf");
  assertSchema("get_media", "data", one.data);
  assert.equal((await getMedia.execute({ asset_id: bare }, toolCtx(app, u))).data.alt_text, null);
  const list = await listMedia.execute({}, toolCtx(app, u));
  assertSchema("list_media", "data", list.data);
  assert.deepEqual(
    list.data.items.map((m) => [m.asset_id, m.alt_text]),
    [
      [bare, null],
      [described, "A green vase on a shelf"],
    ],
  );
  const found = await searchMedia.execute({ query: "green" }, toolCtx(app, u));
  assertSchema("search_media", "data", found.data);
  assert.deepEqual(
    new Set(found.data.items.map((m) => m.alt_text)),
    new Set([null, "A green vase on a shelf"]),
  );
});
