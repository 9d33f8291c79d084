/**
 * A worker dies while a network create is in flight (docs/social.md "Deliveries: the engine",
 * docs/network-adapters.md "Facebook Pages"): real `serve` and `worker` processes use the live Facebook adapter
 * against the provider-shaped fake (test/fakes/facebook.ts, reached through SOCIAL_HTTP_OVERRIDE). A text
 * post is published through MCP tools (create_text_post, publish_post approved by the owner); when the fake
 * receives `POST /{page-id}/feed` it creates the post and, before answering, the worker is killed with
 * SIGKILL. A second worker then finds the delivery mid-step, asks Facebook first (the Page's recent posts)
 * instead of creating again, and records the post: the delivery ends `published` with the fake's ids and
 * permalink, the fake holds exactly one post, and the publish operation is `outcome_unknown` (never
 * replayed).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, test } from "node:test";
import { createUser } from "../../src/domain/account/accounts.ts";
import { upsertConnectedAccount } from "../../src/domain/social/accounts.ts";
import { FACEBOOK_CAPABILITIES } from "../../src/providers/social/facebook/oauth.ts";
import { FB_GRAPH_HOST, type FeedPost, facebookFake } from "../fakes/facebook.ts";
import { FAKE_APPS, liveNetworkEnv } from "../fakes/live-env.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { browserSession } from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { connect } from "../helpers/tokens.ts";
import { postDecision, waitFor } from "../operations/helpers.ts";
import { type ClusterProcess, startCluster, toolCaller } from "./cluster.ts";

const LEASE_SECONDS = 6;
/** The delivery step lease (DELIVERY_LEASE_SECONDS), waited out by the test. */
const DELIVERY_LEASE_SECONDS = 12;
const fakes = await startFakeNetworks();
const fb = facebookFake(fakes, FAKE_APPS.facebook);
const database = await freshDatabase({ autoDrop: false });
const cluster = await startCluster({
  databaseUrl: database.url,
  db: database.db,
  servers: 1,
  workers: 1,
  env: {
    ...liveNetworkEnv(fakes, ["facebook"]),
    WORKER_LEASE_SECONDS: String(LEASE_SECONDS),
    DELIVERY_LEASE_SECONDS: String(DELIVERY_LEASE_SECONDS),
  },
});
after(async () => {
  await cluster.stop();
  await database.drop();
});

test("SIGKILL of the worker right after Facebook created the post: reconciled, published once", async () => {
  const email = `crash-net-${randomUUID().slice(0, 8)}@example.test`;
  const ids = await createUser(database.db, {
    email,
    password: "correct horse battery staple",
    workspace: "Crash network",
    plan: "pro",
  });
  const owner = { userId: ids.user_id, workspaceId: ids.workspace_id };
  const fbUser = fb.addUser({ name: "Crash Test Page", pages: ["Crash Test Page"] });
  const page = fbUser.pages[0]!;
  const { account } = await upsertConnectedAccount(database.db, cluster.sealer, owner, {
    network: "facebook",
    mode: "live",
    account: {
      networkAccountId: page.id,
      handle: page.name,
      capabilities: FACEBOOK_CAPABILITIES,
      tokens: { accessToken: page.accessToken, scopes: ["pages_show_list", "pages_manage_posts"] },
    },
    tokens: { accessToken: "user-token-not-used", scopes: [] },
    now: new Date(),
  });

  const { token } = await connect(cluster.issuer, ids, [
    "create:content",
    "publish:content",
    "read:schedules",
    "read:jobs",
  ]);
  const call = toolCaller(cluster, token);
  const caption = `Crash mid-create ${randomUUID().slice(0, 8)}`;
  const draft = await call("create_text_post", { caption, status: "draft", idempotency_key: randomUUID() });
  const postId: string = draft.data.post_id;
  const publish = await call("publish_post", {
    post_id: postId,
    social_account_ids: [account.social_account_id],
    idempotency_key: randomUUID(),
  });
  assert.equal(publish.status, "approval_required");
  const operationId: string = publish.operation_id;

  // When the create reaches Facebook: the post exists there; the worker dies before it hears the answer.
  const crash: { victim?: ClusterProcess; post?: FeedPost } = {};
  fb.onPostCreated = async (post) => {
    fb.onPostCreated = undefined;
    crash.post = post;
    crash.victim = cluster.processes.find(
      (p) =>
        p.role === "worker" &&
        p.child.exitCode === null &&
        p.lines.some((l) => l.includes(operationId) && l.includes("operation running")),
    );
    if (!crash.victim) return;
    const exited = new Promise((resolve) => crash.victim!.child.once("exit", resolve));
    crash.victim.child.kill("SIGKILL");
    await exited;
  };

  const session = await browserSession({ db: database.db }, ids.user_id);
  const decided = await postDecision(cluster, operationId, session, "approve");
  assert.equal(decided.status, 303);
  await waitFor(
    async () => crash.victim?.child.signalCode,
    (signal) => signal === "SIGKILL",
    60_000,
  );
  const { victim, post: created } = crash;
  assert.ok(created, "Facebook received the create");
  assert.ok(victim, "the worker running the publish operation was found");
  assert.equal(victim.child.signalCode, "SIGKILL", "killed while Facebook's answer was pending");
  assert.equal(created.message, caption);

  const delivery = () =>
    database
      .db("deliveries")
      .where({ post_id: postId, social_account_id: account.social_account_id })
      .first();
  const orphaned = await delivery();
  assert.equal(orphaned.status, "pending", "the dead worker recorded no outcome");
  assert.ok(orphaned.step_started_at, "the step was left mid-way");
  assert.ok(orphaned.network_ids.postRequestedAt, "the create was recorded before it was sent");
  assert.equal(orphaned.network_ids.postId, undefined, "the answer never arrived");

  // The dead worker's step lease (DELIVERY_LEASE_SECONDS) runs out; nothing moves it by hand.
  assert.ok(orphaned.locked_until, "the dead worker's step lease is still held");
  await cluster.addWorker("worker-2");

  // The new worker's scheduler pass (every minute) steps the delivery: reconcile first.
  const done = await waitFor(delivery, (d) => d.status === "published" || d.status === "failed", 150_000);
  assert.equal(done.status, "published", done.error ?? "");
  const onPage = [...fb.posts.values()].filter((p) => p.pageId === page.id);
  assert.equal(onPage.length, 1, "exactly one post at Facebook");
  assert.equal(fb.publishes, 1);
  assert.equal(fakes.hitsFor(FB_GRAPH_HOST, `/${page.id}/feed`, "POST").length, 1, "one create call");
  assert.ok(
    fakes.hitsFor(FB_GRAPH_HOST, `/${page.id}/feed`, "GET").length >= 1,
    "reconciled through the Page's recent posts",
  );
  assert.equal(onPage[0]!.id, created.id);
  assert.equal(done.provider_post_id, created.id);
  assert.equal(done.network_ids.postId, created.id, "the network id was saved");
  assert.equal(done.network_ids.postRequestedAt, orphaned.network_ids.postRequestedAt);
  assert.equal(done.post_url, created.permalink_url);
  assert.equal(done.step_started_at, null);
  // The post's status follows its deliveries right after (settled in the same pass).
  const post = await waitFor(
    () => database.db("posts").where({ id: postId }).first("status"),
    (p) => p?.status === "published",
    30_000,
  );
  assert.equal(post.status, "published");

  // The publish operation's worker died: it is never replayed, and says so.
  const op = await waitFor(
    () => database.db("operations").where({ id: operationId }).first("state"),
    (o) => o?.state === "outcome_unknown",
    30_000,
  );
  assert.equal(op?.state, "outcome_unknown");
  const listed = await call("list_deliveries", { post_id: postId });
  assert.equal(listed.data.items.length, 1);
  assert.equal(listed.data.items[0].status, "published");
  assert.equal(listed.data.items[0].post_url, created.permalink_url);
});
