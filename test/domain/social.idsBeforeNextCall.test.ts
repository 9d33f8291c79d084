/**
 * A network id is saved before anything else can happen on the network side (service spec 3.1;
 * src/domain/social/delivery-step.ts, src/providers/social/before-call.ts): an id the adapter saved is in
 * the database before its next request leaves the social HTTP client, and with the step's last update when
 * no request follows; an id saved before a failure is kept with the failure. The network here is an in-test
 * publisher that calls a local server through the service's social HTTP client (src/providers/social/http.ts)
 * and the server reads the delivery's row as each request arrives.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { connectSocialAccount } from "../../src/domain/social/accounts.ts";
import { runDeliveryStep } from "../../src/domain/social/delivery-claim.ts";
import { createSocialHttp } from "../../src/providers/social/http.ts";
import {
  type DeliveryJob,
  type NetworkAdapter,
  type NetworkRegistry,
  NetworkTransientError,
} from "../../src/providers/social/network.ts";
import { startTestApp } from "../helpers/app.ts";
import { textPost } from "../tools/carousels/fixtures.ts";

/** The delivery's network_ids as each request arrived at the local server. */
const seenAtRequest: Array<Record<string, unknown>> = [];
let readIds: (deliveryId: string) => Promise<Record<string, unknown>> = async () => ({});
const server = http.createServer(async (req, res) => {
  const id = new URL(req.url ?? "/", "http://x").searchParams.get("delivery") ?? "";
  seenAtRequest.push(await readIds(id));
  res.writeHead(req.url?.includes("fail") ? 503 : 200, { "content-type": "application/json" }).end("{}");
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
after(() => server.close());
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const socialHttp = createSocialHttp(undefined);

/** What the step does: "two calls" (create, save, a second call), "save last", or "fail after save". */
let plan: "two calls" | "save last" | "fail after save" = "two calls";

const adapter = {
  network: "x",
  mode: "live",
  publisher: {
    async step(job: DeliveryJob, save: (ids: Record<string, unknown>) => Promise<void>) {
      const at = (path: string) => `${base}/${path}?delivery=${job.delivery.id}`;
      await socialHttp.fetch(at("create"));
      await save({ mediaId: `m-${job.delivery.id}` });
      if (plan === "save last") {
        await save({ postId: `p-${job.delivery.id}` });
        return {
          state: "published",
          postUrl: `https://x.test.example/${job.delivery.id}`,
          networkPostId: `p-${job.delivery.id}`,
        };
      }
      const r = await socialHttp.fetch(at(plan === "fail after save" ? "fail" : "post"));
      if (!r.ok) throw new NetworkTransientError("the test network failed", false);
      return {
        state: "published",
        postUrl: `https://x.test.example/${job.delivery.id}`,
        networkPostId: `p-${job.delivery.id}`,
      };
    },
    async reconcile() {
      return { state: "not_created" };
    },
  },
} as unknown as NetworkAdapter;
const networks: NetworkRegistry = { adapter: () => adapter, forAccount: () => adapter };
const app = await startTestApp({ queue: false, providers: { networks } });
readIds = async (id) =>
  ((await app.ctx.db("deliveries").where({ id }).first("network_ids"))?.network_ids ?? {}) as Record<
    string,
    unknown
  >;
const me = await app.user();
const account = await connectSocialAccount(
  app.ctx.db,
  app.ctx.sealer,
  { userId: me.user_id, workspaceId: me.workspace_id },
  {
    network: "x",
    displayName: "x",
    handle: "x_ids",
    mode: "live",
    networkAccountId: "x-ids",
    accessToken: "token-x-ids",
    scopes: [],
  },
);

async function dueDelivery(): Promise<string> {
  const [row] = await app.ctx
    .db("deliveries")
    .insert({
      workspace_id: me.workspace_id,
      user_id: me.user_id,
      post_id: await textPost(app, me, "Ids first"),
      social_account_id: account.social_account_id,
      status: "pending",
      next_attempt_at: new Date(Date.now() - 1000),
    })
    .returning("id");
  return row.id;
}

test("an id the adapter saved is in the database before its next request is sent", async () => {
  plan = "two calls";
  seenAtRequest.length = 0;
  const id = await dueDelivery();
  assert.equal(await runDeliveryStep(app.ctx, id), "published");
  assert.deepEqual(seenAtRequest, [{}, { mediaId: `m-${id}` }]);
  assert.deepEqual(await readIds(id), { mediaId: `m-${id}` });
});

test("ids saved by the step's last call are written with the step's last update", async () => {
  plan = "save last";
  const id = await dueDelivery();
  assert.equal(await runDeliveryStep(app.ctx, id), "published");
  const row = await app.ctx.db("deliveries").where({ id }).first("network_ids", "provider_post_id", "status");
  assert.deepEqual(row.network_ids, { mediaId: `m-${id}`, postId: `p-${id}` });
  assert.equal(row.provider_post_id, `p-${id}`);
});

test("an id saved before a failure is kept with the failure's update", async () => {
  plan = "fail after save";
  const id = await dueDelivery();
  assert.equal(await runDeliveryStep(app.ctx, id), "pending");
  const row = await app.ctx.db("deliveries").where({ id }).first("network_ids", "attempt", "error");
  assert.deepEqual(row.network_ids, { mediaId: `m-${id}` });
  assert.equal(row.attempt, 1);
});
