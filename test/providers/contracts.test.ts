/**
 * The contract check of the fakes (test/fakes/contract.ts): a request the provider's published description
 * refuses is answered with the provider's own error body before the fake acts on it, and is kept as a
 * violation (which fails the test that caused it unless the test takes it, as these do); an answer that breaks
 * the description's response schema is a violation too.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Contract } from "../fakes/contract.ts";
import { ContractGuard } from "../fakes/contract-guard.ts";
import { instagramFake, IG_GRAPH_HOST } from "../fakes/instagram.ts";
import { startFakeChat } from "../fakes/openai-chat.ts";
import { startFakeImageServer } from "../fakes/openai-images.ts";
import { PIN_API_HOST, pinterestFake } from "../fakes/pinterest.ts";
import { startFakeNetworks } from "../fakes/server.ts";
import { X_API_HOST, xFake } from "../fakes/x.ts";
import { GOOGLE_APIS_HOST, youtubeFake } from "../fakes/youtube.ts";

const server = await startFakeNetworks();
const images = await startFakeImageServer({ apiKey: "sk-test-key" });
after(() => images.close());
const chat = await startFakeChat({ apiKey: "sk-test-key" });
after(() => chat.close());
const pins = pinterestFake(server, { clientId: "pin-app", clientSecret: "pin-secret" });
const x = xFake(server, { clientId: "x-app", clientSecret: "x-secret" });
const yt = youtubeFake(server, { clientId: "yt-client", clientSecret: "yt-secret" });
const ig = instagramFake(server, { clientId: "ig-app", clientSecret: "ig-secret" });

const call = (host: string, path: string, token: string, init: RequestInit = {}) =>
  fetch(server.urlFor(host, path), {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

test("OpenAI: an unknown quality is refused with OpenAI's invalid_value error, before the fake generates anything", async () => {
  const res = await fetch(`${images.baseUrl}/images/generations`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test-key" },
    body: JSON.stringify({ model: "gpt-image-1.5", prompt: "a mug", quality: "ultra" }),
  });
  assert.equal(res.status, 400);
  const { error } = (await res.json()) as any;
  assert.deepEqual(
    [error.type, error.param, error.code],
    ["invalid_request_error", "quality", "invalid_value"],
  );
  assert.match(
    error.message,
    /Invalid value: 'ultra'\. Supported values are: 'standard', 'hd', 'low', 'medium', 'high', and 'auto'\./,
  );
  const taken = images.takeViolations();
  assert.deepEqual(
    taken.map((v) => [v.provider, v.operation, v.kind, v.param]),
    [["openai", "createImage", "invalid_value", "quality"]],
  );
});

test("Pinterest: a pin without media_source (required by the pins/create reference) is refused with Pinterest's {code, message}", async () => {
  const user = pins.addUser();
  const board = user.boards[0]!.id;
  const before = server.counter("pinterest.pins");
  const res = await call(PIN_API_HOST, "/v5/pins", user.accessToken, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ board_id: board, title: "A mug" }),
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 1);
  assert.match(res.body.message, /media_source/);
  assert.equal(server.counter("pinterest.pins"), before);
  assert.deepEqual(
    server.takeViolations().map((v) => [v.provider, v.operation, v.kind, v.param]),
    [["pinterest", "pins/create", "missing_parameter", "media_source"]],
  );
});

test("X: a media finalize without its id is not an operation of X's descriptions: X's 404, a violation", async () => {
  const user = x.addUser();
  const res = await call(X_API_HOST, "/2/media/upload/finalize", user.accessToken, { method: "POST" });
  assert.equal(res.status, 404);
  assert.equal(res.body.errors[0].message, "Sorry, that page does not exist");
  // And a finalize whose id is not a media id (MediaId: 1 to 19 digits).
  const bad = await call(X_API_HOST, "/2/media/upload/abc/finalize", user.accessToken, { method: "POST" });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.type, "https://api.twitter.com/2/problems/invalid-request");
  assert.deepEqual(
    server.takeViolations().map((v) => [v.provider, v.kind, v.param ?? null]),
    [
      ["x", "unknown_operation", null],
      ["x", "invalid_value", "id"],
    ],
  );
});

test("X: tweet.fields (v2.159) and post.fields (2026-07) are each valid against one description; both at once against neither", async () => {
  const user = x.addUser();
  const id = x.addTweet(user.id, { like_count: 3 });
  for (const name of ["tweet.fields", "post.fields"]) {
    const res = await call(X_API_HOST, `/2/tweets?ids=${id}&${name}=public_metrics`, user.accessToken);
    assert.equal(res.status, 200, name);
    assert.equal(res.body.data[0].public_metrics.like_count, 3);
  }
  const both = await call(
    X_API_HOST,
    `/2/tweets?ids=${id}&tweet.fields=public_metrics&post.fields=public_metrics`,
    user.accessToken,
  );
  assert.equal(both.status, 400);
  assert.deepEqual(
    server.takeViolations().map((v) => [v.kind, v.param]),
    [["unknown_parameter", "post.fields"]],
  );
});

test("YouTube: an insert with an unknown part is refused with reason unknownPart", async () => {
  const user = yt.addUser();
  const res = await call(
    GOOGLE_APIS_HOST,
    "/upload/youtube/v3/videos?uploadType=resumable&part=snippet,ratings",
    user.accessToken,
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-upload-content-type": "video/mp4",
        "x-upload-content-length": "1000",
      },
      body: JSON.stringify({ snippet: { title: "A mug" } }),
    },
  );
  assert.equal(res.status, 400);
  assert.deepEqual(res.body.error.errors[0], { message: "ratings", domain: "global", reason: "unknownPart" });
  assert.deepEqual(
    server.takeViolations().map((v) => [v.provider, v.operation, v.kind, v.value]),
    [["youtube", "youtube.videos.insert.upload", "unknown_part", "ratings"]],
  );
});

test("Graph: a field the node does not have is (#100) Tried accessing nonexisting field", async () => {
  const user = ig.addUser({ username: "shop" });
  const res = await call(IG_GRAPH_HOST, "/v23.0/me?fields=username,impressions_total", user.accessToken);
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 100);
  assert.equal(res.body.error.type, "OAuthException");
  assert.equal(
    res.body.error.message,
    "(#100) Tried accessing nonexisting field (impressions_total) on node type (IGUserForIGOnlyAPI)",
  );
  assert.deepEqual(
    server.takeViolations().map((v) => [v.provider, v.kind, v.value]),
    [["instagram", "unknown_field", "impressions_total"]],
  );
});

test("a kept violation fails the test: the guard throws it at the test's end; an answer off its schema is one too", async () => {
  const guard = new ContractGuard({ deliberate: true });
  const contract = new Contract("pinterest", ["pinterest"]);
  const req = {
    method: "GET",
    path: "/v5/user_account",
    query: new URLSearchParams("ad_account_id=1&color=red"),
    headers: {},
    body: Buffer.alloc(0),
  };
  const r = await guard.request(contract, req);
  assert.equal(r.refusal?.status, 400);
  assert.throws(
    () => guard.failIfAny(),
    /pinterest request GET \/v5\/user_account \[user_account\/get\]: unknown query parameter 'color'/,
  );
  const ok = await guard.request(contract, { ...req, query: new URLSearchParams() });
  assert.equal(ok.refusal, undefined);
  // A user_account answer whose account_type is not one of Pinterest's values.
  guard.response(contract, ok.valid!, req, 200, { account_type: "CELEBRITY", username: "x" });
  assert.throws(
    () => guard.failIfAny(),
    /answer 200 of user_account\/get \(pinterest\): account_type must be one of/,
  );
  assert.doesNotThrow(() => guard.failIfAny());
});

test("OpenAI: JSON mode without the word json in the messages is refused on messages, as OpenAI does", async () => {
  const post = (content: string) =>
    fetch(`${chat.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test-key" },
      body: JSON.stringify({
        model: "gpt-4.1-mini",
        messages: [{ role: "user", content }],
        response_format: { type: "json_object" },
      }),
    }).then(async (r) => [r.status, ((await r.json()) as any).error?.param ?? null] as const);
  assert.deepEqual(await post("Write a caption for a mug"), [400, "messages"]);
  assert.deepEqual(await post("Answer in JSON: a caption for a mug"), [200, null]);
  assert.deepEqual(
    chat.takeViolations(),
    [],
    "the description allows both: the rule is the fake's, from the guide",
  );
});
