/**
 * A suspended workspace in the browser (src/web/suspended.ts): /media, /review and /settings/social show
 * that it is suspended (403) instead of its content, refuse its forms and its files, while the user's
 * other, active workspace keeps working.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { createWorkspace } from "../../src/domain/account/workspaces.ts";
import { browserSession, launchBrowser } from "../helpers/browser.ts";
import { problemsAtEverySize } from "../helpers/page-checks.ts";
import { account, setup, storedImage } from "../tools/carousels/fixtures.ts";

const { app, me } = await setup("pro");
const image = await storedImage(app, me, 32);
const fb = await account(app, me, "facebook");
const other = await createWorkspace(app.ctx.db, me.user_id, "Still active");
const s = await browserSession(app.ctx, me.user_id);
await app.ctx.db("workspaces").where({ id: me.workspace_id }).update({ status: "suspended" });

const get = (path: string) =>
  fetch(`${app.url}${path}`, { headers: { cookie: s.cookie }, redirect: "manual" });
const post = (path: string, fields: Record<string, string>) =>
  fetch(`${app.url}${path}`, {
    method: "POST",
    headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded", origin: app.url },
    body: new URLSearchParams({ csrf_token: s.csrf, ...fields }).toString(),
    redirect: "manual",
  });

async function assertSuspendedPage(res: Response) {
  assert.equal(res.status, 403);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const $ = cheerio.load(await res.text());
  assert.equal($("h1").text(), "This workspace is suspended");
  assert.match($('[role="alert"]').text(), /The workspace .+ is suspended/);
}

test("the pages of a suspended workspace say it is suspended", async () => {
  for (const path of [
    "/media",
    `/media?workspace_id=${me.workspace_id}`,
    `/review?workspace_id=${me.workspace_id}`,
    `/settings/social?workspace_id=${me.workspace_id}`,
    `/settings/social/accounts/${fb}/disconnect`,
  ])
    await assertSuspendedPage(await get(path));
});

test("the forms of a suspended workspace are refused and change nothing", async () => {
  await assertSuspendedPage(
    await post("/media/cta-artwork", { workspace_id: me.workspace_id, product_id: "x", asset_id: image }),
  );
  await assertSuspendedPage(
    await post("/settings/social/connect/facebook", { workspace_id: me.workspace_id }),
  );
  await assertSuspendedPage(await post(`/settings/social/accounts/${fb}/disconnect`, {}));
  assert.equal((await app.ctx.db("social_accounts").where({ id: fb }).first()).status, "connected");
  assert.equal(
    (await app.ctx.db("social_connect_states").where({ workspace_id: me.workspace_id })).length,
    0,
  );
});

test("a suspended workspace's media files are not served", async () => {
  assert.equal((await get(`/media/${image}/file`)).status, 404);
  await app.ctx.db("workspaces").where({ id: me.workspace_id }).update({ status: "active" });
  try {
    assert.equal((await get(`/media/${image}/file`)).status, 200);
  } finally {
    await app.ctx.db("workspaces").where({ id: me.workspace_id }).update({ status: "suspended" });
  }
});

test("the user's other, active workspace still works", async () => {
  for (const path of [
    `/media?workspace_id=${other.workspace_id}`,
    `/review?workspace_id=${other.workspace_id}`,
    `/settings/social?workspace_id=${other.workspace_id}`,
  ]) {
    const res = await get(path);
    assert.equal(res.status, 200, path);
    await res.arrayBuffer();
  }
});

test("the suspended page passes the page checks in Chromium at desktop and phone size", async () => {
  const [name, value] = s.cookie.split("=") as [string, string];
  const found = await problemsAtEverySize(
    await launchBrowser(),
    [
      {
        label: "suspended",
        async open(page) {
          const res = await page.goto(`${app.url}/settings/social?workspace_id=${me.workspace_id}`);
          assert.equal(res?.status(), 403);
          assert.equal(await page.locator("h1").textContent(), "This workspace is suspended");
        },
      },
    ],
    (context) => context.addCookies([{ name, value, url: app.url }]),
  );
  assert.deepEqual(found, []);
});
