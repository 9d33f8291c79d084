/**
 * Alt text: a slide's is written from its own words, `alt_texts` given with a post are checked (path and
 * limit named), and each network gets it in its own field against its provider-shaped fake: LinkedIn
 * `altText` on multiImage images (the fake refuses more than 4,086 characters with LinkedIn's 422), X
 * `POST /2/media/metadata` (X's description refuses more than 1,000), Pinterest `alt_text` (its description
 * refuses more than 500); the per-network limits of rules.ts are checked before anything is sent.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ALT_TEXT_MAX_LENGTH, checkAltTexts, slideAltText } from "../../../src/domain/media/alt-text.ts";
import { ToolError } from "../../../src/errors.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import { linkedinAdapter } from "../../../src/providers/social/linkedin/adapter.ts";
import { type JobMedia, NetworkRejectedError } from "../../../src/providers/social/network.ts";
import { pinterestAdapter } from "../../../src/providers/social/pinterest/adapter.ts";
import { checkNetworkRules } from "../../../src/providers/social/rule-check.ts";
import { NETWORK_RULES } from "../../../src/providers/social/rules.ts";
import { xAdapter } from "../../../src/providers/social/x/adapter.ts";
import { drive, jobFor, startMediaHost } from "../../fakes/jobs.ts";
import { LI_ORGANIZATION_APP_SCOPES, linkedinFake } from "../../fakes/linkedin.ts";
import { FAKE_APPS } from "../../fakes/live-env.ts";
import { pinterestFake } from "../../fakes/pinterest.ts";
import { networkSamples } from "../../fakes/samples.ts";
import { startFakeNetworks } from "../../fakes/server.ts";
import { xFake } from "../../fakes/x.ts";

const server = await startFakeNetworks();
const http = createSocialHttp(server.url);
const li = linkedinFake(server, { ...FAKE_APPS.linkedin, appScopes: LI_ORGANIZATION_APP_SCOPES });
const x = xFake(server, FAKE_APPS.x);
const pinCredentials = { clientId: "pin-app-id", clientSecret: "pin-app-secret" };
const pin = pinterestFake(server, pinCredentials);
const host = await startMediaHost();
const samples = await networkSamples();
const deps = {
  publicBaseUrl: "http://127.0.0.1",
  sealer: { seal: (v: unknown) => JSON.stringify(v), open: (s: string) => JSON.parse(s) },
  now: () => new Date(),
  http,
};

/** `n` JPEG images with alt texts `alts` (undefined: none). */
async function images(prefix: string, alts: Array<string | undefined>): Promise<JobMedia[]> {
  const out: JobMedia[] = [];
  for (const [i, alt] of alts.entries()) {
    const m = await host.add({
      name: `${prefix}-${i}.jpg`,
      file: samples.jpg,
      kind: "image",
      mime: "image/jpeg",
    });
    out.push({ ...m, altText: alt ?? null });
  }
  return out;
}

describe("the words", () => {
  test("a slide's alt text is its headline and body with its place; long words are cut on a word to fit", () => {
    assert.equal(
      slideAltText({ headline: "Brighter skin", body: "15% vitamin C.", position: 2, total: 6 }),
      "Brighter skin. 15% vitamin C. (slide 2 of 6)",
    );
    assert.equal(slideAltText({ headline: "Shop now!", position: 6, total: 6 }), "Shop now! (slide 6 of 6)");
    const long = slideAltText({ headline: "Long", body: "word ".repeat(400), position: 1, total: 3 });
    assert.ok([...long].length <= ALT_TEXT_MAX_LENGTH);
    assert.match(long, /word… \(slide 1 of 3\)$/);
  });

  test("alt_texts: one per media asset at most, each within the limit, the path named", () => {
    assert.deepEqual(checkAltTexts([" A mug "], 2), ["A mug", null]);
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as ToolError;
      }
      throw new Error("not refused");
    };
    const long = err(() => checkAltTexts(["ok", "x".repeat(1001)], 2));
    assert.ok(long instanceof ToolError);
    assert.deepEqual(long.details, { path: "/alt_texts/1" });
    assert.match(long.message, /alt_texts\/1 has 1001 characters; an alt text may have at most 1000/);
    assert.deepEqual(err(() => checkAltTexts(["a", "b", "c"], 2)).details, { path: "/alt_texts" });
  });

  test("rules.ts: each network's field and limit with its source; a longer alt text breaks alt_text_length", () => {
    assert.deepEqual(
      Object.values(NETWORK_RULES).map((r) => [
        r.network,
        r.altText?.field ?? null,
        r.altText?.maxLength ?? null,
      ]),
      [
        ["instagram", "alt_text", 1000],
        ["facebook", "alt_text_custom", null],
        ["tiktok", null, null],
        ["youtube", null, null],
        ["linkedin", "altText", 4086],
        ["pinterest", "alt_text", 500],
        ["x", "alt_text", 1000],
      ],
    );
    for (const r of Object.values(NETWORK_RULES))
      if (r.altText) assert.match(r.altText.source, /^https:\/\//);
    const media = [
      {
        kind: "image" as const,
        mime: "image/jpeg",
        bytes: 1000,
        width: 1000,
        height: 1000,
        durationSeconds: null,
        altText: "a".repeat(501),
      },
    ];
    assert.deepEqual(
      checkNetworkRules("pinterest", { caption: "c", media }).map((v) => [v.rule, v.message]),
      [["alt_text_length", "item 1's alt text has 501 characters; Pinterest takes at most 500 (alt_text)"]],
    );
    assert.deepEqual(checkNetworkRules("x", { caption: "c", media }), []);
  });
});

describe("to each network", () => {
  test("LinkedIn: altText on each multiImage image; the fake refuses one over 4,086 with LinkedIn's 422", async () => {
    const m = li.addMember({ name: "Alt Admin" });
    const job = (media: JobMedia[]) => {
      const j = jobFor({
        network: "linkedin",
        networkAccountId: m.urn,
        tokens: { accessToken: m.accessToken, scopes: m.scopes },
        caption: "two mugs",
        type: "image",
        media,
        settings: { linkedin_carousel: "images" },
      });
      j.account.metadata = { authorUrn: m.urn, authorType: "person" };
      return j;
    };
    const a = linkedinAdapter(FAKE_APPS.linkedin, deps);
    const { result } = await drive(a.publisher, job(await images("li", ["A blue mug", undefined])));
    assert.equal(result.state, "published");
    const post = li.posts.get((result as { networkPostId: string }).networkPostId)!;
    assert.deepEqual(
      post.content?.multiImage?.images.map((i) => (i as { altText?: string }).altText ?? null),
      ["A blue mug", null],
    );
    const before = li.postsCreated;
    await assert.rejects(
      drive(a.publisher, job(await images("li-long", ["a".repeat(4087), "b"]))),
      (e: unknown) =>
        e instanceof NetworkRejectedError &&
        /\/content\/multiImage\/images\/0\/altText :: length of the string is greater than 4086/.test(
          e.message,
        ),
    );
    assert.equal(li.postsCreated, before, "nothing posted");
  });

  test("X: POST /2/media/metadata sets each image's alt text; X refuses one over 1,000", async () => {
    const u = x.addUser();
    const job = (media: JobMedia[]) =>
      jobFor({
        network: "x",
        networkAccountId: u.id,
        handle: u.username,
        tokens: u.accessToken,
        type: "image",
        media,
        caption: `alt ${Math.random()}`,
      });
    const a = xAdapter(FAKE_APPS.x, deps);
    const j = job(await images("x", ["Mug on a desk", undefined]));
    const { result } = await drive(a.publisher, j);
    assert.equal(result.state, "published");
    const ids = j.delivery.networkIds.imageMediaIds as string[];
    assert.deepEqual(
      ids.map((id) => x.media.get(id)?.altText ?? null),
      ["Mug on a desk", null],
    );
    await assert.rejects(
      drive(a.publisher, job(await images("x-long", ["a".repeat(1001)]))),
      NetworkRejectedError,
    );
    assert.deepEqual(
      server.takeViolations().map((v) => [v.provider, v.kind]),
      [["x", "invalid_value"]],
    );
  });

  test("Pinterest: the Pin's alt_text is its image's; Pinterest refuses one over 500", async () => {
    const u = pin.addUser({ username: "alt.mugs", boards: ["Mugs"] });
    const a = pinterestAdapter(pinCredentials, deps);
    const job = (media: JobMedia[]) =>
      jobFor({
        network: "pinterest",
        networkAccountId: u.id,
        handle: u.username,
        tokens: {
          accessToken: u.accessToken,
          scopes: ["boards:read", "boards:write", "pins:read", "pins:write", "user_accounts:read"],
        },
        caption: "A mug",
        title: "Mug",
        type: "image",
        media,
        settings: { board_id: u.boards[0]!.id },
      });
    const { result } = await drive(a.publisher, job(await images("pin", ["A speckled mug"])));
    assert.equal(result.state, "published");
    assert.equal(
      pin.pins.get((result as { networkPostId: string }).networkPostId)!.altText,
      "A speckled mug",
    );
    const before = pin.pins.size;
    await assert.rejects(
      drive(a.publisher, job(await images("pin-long", ["a".repeat(501)]))),
      NetworkRejectedError,
    );
    assert.equal(pin.pins.size, before, "no Pin");
    assert.deepEqual(
      server.takeViolations().map((v) => [v.provider, v.param]),
      [["pinterest", "alt_text"]],
    );
  });
});
