/**
 * The view data of a tool result follows the token's scopes (src/mcp/apps/view-data.ts `VIEW_SCOPES`): a
 * token that may read only schedules gets no caption, title or media URL of the post in list_deliveries'
 * view, a token without read:schedules no delivery reason; and a view builder that fails is logged by class
 * and code only (src/mcp/dispatch.ts through logError, service spec 7 rule 7): neither the error's message
 * nor its stack reaches the log.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { createLogger } from "../../src/log.ts";
import { startTestApp } from "../helpers/app.ts";
import { VIEWS_CAPABILITIES } from "../helpers/app-host.ts";
import { rpc, type RpcOptions } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";
import { account, imagePost } from "../tools/carousels/fixtures.ts";

const lines: Array<Record<string, any>> = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});
const app = await startTestApp({ queue: false, logger: createLogger("info", sink) });
const me = await app.user();
const CAPTION = "caption-7c1e of the summer sale";
const postId = await imagePost(app, me, CAPTION, 1);
const insta = await account(app, me, "instagram", "Shop Insta");
await app.ctx.db("deliveries").insert({
  workspace_id: me.workspace_id,
  user_id: me.user_id,
  post_id: postId,
  social_account_id: insta,
  status: "failed",
  error: "Instagram refused the image: aspect ratio",
});

const views = (token: string): RpcOptions => ({
  token,
  meta: {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": VIEWS_CAPABILITIES,
  },
});

async function viewOf(scopes: string[], name: string) {
  const { token } = await connect(app, me, scopes);
  const r = await rpc(app.resource, "tools/call", { name, arguments: { post_id: postId } }, views(token));
  assert.equal(r.body.result.isError, undefined, r.text);
  return { result: r.body.result, view: r.body.result._meta["social-mcp/view"] };
}

test("list_deliveries with only read:schedules: the view has no caption, no title and no media URL", async () => {
  const { result, view } = await viewOf(["read:schedules"], "list_deliveries");
  assert.equal(view.view, "post");
  assert.equal(view.post, null, "the post's content needs read:content");
  assert.deepEqual(view.networks, [], "the network previews show the caption");
  const text = JSON.stringify(view);
  assert.ok(!text.includes(CAPTION), "no caption");
  assert.ok(!text.includes("/media/public/"), "no media URL");
  // The tool's own result still lists the delivery with its reason.
  assert.equal(result.structuredContent.data.items[0].reason, "Instagram refused the image: aspect ratio");
});

test("with read:content as well the post, its media and previews are shown", async () => {
  const { view } = await viewOf(["read:schedules", "read:content"], "list_deliveries");
  assert.equal(view.post.caption, CAPTION);
  assert.equal(view.post.media.length, 1);
  assert.match(view.post.media[0].url, /\/media\/public\//);
  assert.equal(view.post.deliveries[0].reason, "Instagram refused the image: aspect ratio");
  assert.ok(view.networks.length > 0);
});

test("get_post with only read:content: deliveries without the reason list_deliveries would give", async () => {
  const { view } = await viewOf(["read:content"], "get_post");
  assert.equal(view.post.caption, CAPTION);
  assert.equal(view.post.deliveries.length, 1);
  assert.equal(view.post.deliveries[0].status, "failed");
  assert.equal(view.post.deliveries[0].reason, null, "the reason needs read:schedules");
});

test("a failing view builder is logged by class and code, never with the error's message or stack", async () => {
  const { token } = await connect(app, me, ["read:content"]);
  const keys = app.ctx.keys;
  const real = Object.getOwnPropertyDescriptor(keys, "encryptionKeys")!;
  const secret = `Bearer eyJhbGciOiJFUzI1NiJ9.secret-4d2a for ${CAPTION}`;
  class SigningError extends Error {
    override name = "SigningError";
    code = "ESIGN";
  }
  // Signing the post's media URL fails with an error whose message (and so its stack) carries user data.
  Object.defineProperty(keys, "encryptionKeys", {
    configurable: true,
    get() {
      throw new SigningError(`could not sign ${secret}`);
    },
  });
  const before = lines.length;
  try {
    const r = await rpc(
      app.resource,
      "tools/call",
      { name: "get_post", arguments: { post_id: postId } },
      views(token),
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.result.structuredContent.status, "succeeded", "the call itself still answers");
    assert.equal(r.body.result._meta["social-mcp/view"], undefined);
  } finally {
    Object.defineProperty(keys, "encryptionKeys", real);
  }
  const logged = lines.slice(before);
  const entry = logged.find((l) => l.msg === "view data of a tool result could not be built");
  assert.ok(entry, JSON.stringify(logged));
  assert.equal(entry.errorClass, "SigningError");
  assert.equal(entry.errorCode, "ESIGN");
  assert.equal(entry.tool, "get_post");
  assert.match(entry.requestId, /^[0-9a-f-]{36}$/);
  const text = JSON.stringify(logged);
  for (const leak of [
    "could not sign",
    "secret-4d2a",
    "caption-7c1e",
    "eyJhbGciOiJFUzI1NiJ9",
    "viewScopes.test",
  ])
    assert.ok(!text.includes(leak), `the log holds ${leak}`);
  assert.equal(entry.err, undefined);
  assert.equal(entry.stack, undefined);
});
