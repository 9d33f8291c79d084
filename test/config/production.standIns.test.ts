/**
 * Production runs no stand-in by accident (DESIGN.md section 5): with NODE_ENV=production the start refuses,
 * in one line naming the variable, when AI_TEXT_PROVIDER or AI_IMAGE_PROVIDER is not set (`local` stays
 * allowed when set); a network without credentials is unavailable there (not a sandbox) unless
 * SOCIAL_SANDBOX_NETWORKS names it: no adapter, no Connect button, no sandbox consent page, the banner and
 * the settings page list it as unavailable. Outside production every network may use the sandbox, as
 * before, unless SOCIAL_SANDBOX_NETWORKS narrows it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { boot } from "../../src/bootstrap.ts";
import { startupBanner } from "../../src/cli/banner.ts";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import type { AppContext } from "../../src/context.ts";
import { buildProviders, NetworkUnavailableError, networkMode } from "../../src/providers/providers.ts";
import { NETWORKS } from "../../src/providers/social/types.ts";
import { startTestApp } from "../helpers/app.ts";
import { HIGH_LIMITS, Jar, login } from "../oauth/support.ts";

const PROD = { NODE_ENV: "production", PUBLIC_BASE_URL: "https://social.example.com" };
const CHOSEN = { AI_TEXT_PROVIDER: "local", AI_IMAGE_PROVIDER: "local" };

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err;
  }
  return undefined;
};

test("in production the AI providers must be chosen explicitly; local is allowed when set", () => {
  const text = refusal(PROD);
  assert.equal(text?.variable, "AI_TEXT_PROVIDER");
  assert.doesNotMatch(text!.message, /\n/, "one line");
  assert.match(text!.message, /^AI_TEXT_PROVIDER: must be set in production/);
  assert.equal(refusal({ ...PROD, AI_TEXT_PROVIDER: "local" })?.variable, "AI_IMAGE_PROVIDER");
  const c = loadConfig({ ...PROD, ...CHOSEN });
  assert.equal(c.ai.provider, "local");
  assert.equal(c.image.provider, "local");
  // Outside production the defaults stay local.
  assert.equal(loadConfig({}).ai.provider, "local");
});

test("the start (boot) refuses before it touches anything, naming the variable", async () => {
  await assert.rejects(
    boot({
      env: { ...PROD, AI_IMAGE_PROVIDER: "local", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" },
    }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message ===
        "AI_TEXT_PROVIDER: must be set in production (NODE_ENV=production): openai-compatible, or local for the offline stand-in; no AI provider is chosen by default there",
  );
});

test("in production a network without credentials is unavailable unless SOCIAL_SANDBOX_NETWORKS names it", () => {
  const config = loadConfig({ ...PROD, ...CHOSEN, X_CLIENT_ID: "x-app", X_CLIENT_SECRET: "x-secret" });
  assert.deepEqual(config.social.sandboxNetworks, []);
  assert.deepEqual(
    NETWORKS.map((n) => [n, networkMode(config, n)]),
    NETWORKS.map((n) => [n, n === "x" ? "live" : "unavailable"]),
  );
  const { networks } = buildProviders(config);
  assert.throws(() => networks.adapter("instagram"), NetworkUnavailableError);
  assert.throws(
    () => networks.forAccount("tiktok", "sandbox"),
    /tiktok is not available on this server: TIKTOK_CLIENT_ID and TIKTOK_CLIENT_SECRET are not configured and SOCIAL_SANDBOX_NETWORKS does not name it/,
  );
  assert.equal(networks.adapter("x").mode, "live");
  const banner = startupBanner(
    {
      config,
      providers: { text: { name: "local" }, image: { name: "local" }, video: { name: "local" } },
    } as unknown as AppContext,
    {
      command: "worker",
      embeddedDb: false,
    },
  ).join("\n");
  assert.match(
    banner,
    /social: +live: x; unavailable \(no credentials; SOCIAL_SANDBOX_NETWORKS does not name them\): instagram, tiktok, facebook, youtube, linkedin, pinterest/,
  );

  const named = loadConfig({ ...PROD, ...CHOSEN, SOCIAL_SANDBOX_NETWORKS: "Instagram, tiktok" });
  assert.deepEqual(named.social.sandboxNetworks, ["instagram", "tiktok"]);
  assert.equal(networkMode(named, "instagram"), "sandbox");
  assert.equal(buildProviders(named).networks.adapter("tiktok").mode, "sandbox");
  assert.equal(networkMode(named, "facebook"), "unavailable");
  assert.equal(
    refusal({ ...CHOSEN, SOCIAL_SANDBOX_NETWORKS: "myspace" })?.variable,
    "SOCIAL_SANDBOX_NETWORKS",
  );
  // Partial credentials are refused everywhere, naming the missing half.
  assert.equal(refusal({ ...PROD, ...CHOSEN, X_CLIENT_ID: "x-app" })?.variable, "X_CLIENT_SECRET");
  // Outside production every network without credentials may use the sandbox, as before.
  assert.deepEqual(loadConfig({}).social.sandboxNetworks, [...NETWORKS]);
});

test("the settings page lists an unavailable network without a Connect button; connecting it is refused", async () => {
  const app = await startTestApp({
    queue: false,
    env: { ...HIGH_LIMITS, SOCIAL_SANDBOX_NETWORKS: "instagram" },
  });
  const me = await app.user();
  const jar = new Jar(app.url);
  assert.equal((await login(jar, me.email, me.password, "/settings/social")).status, 303);
  const page = await (await jar.fetch("/settings/social")).text();
  assert.match(page, /data-connect="instagram"/);
  assert.doesNotMatch(page, /data-connect="x"/);
  assert.match(
    page,
    /id="unavailable-note">Not available on this server: TikTok, Facebook, YouTube, LinkedIn, Pinterest, X \(no app is configured for them\)/,
  );
  const csrf = page.match(/name="csrf_token" value="([^"]+)"/)![1]!;
  const refused = await jar.post(
    "/settings/social/connect/x",
    { csrf_token: csrf, workspace_id: me.workspace_id },
    { origin: app.url },
  );
  assert.equal(refused.status, 404);
  assert.match(await refused.text(), /X is not available on this server/);
  const consent = await jar.fetch(
    `/sandbox/x/authorize?redirect_uri=${encodeURIComponent(`${app.url}/settings/social/callback/x`)}&state=s`,
  );
  assert.equal(consent.status, 404);
  assert.equal(
    await app.ctx
      .db("social_connect_states")
      .count({ n: "*" })
      .first()
      .then((r) => Number(r?.n)),
    0,
  );
  await app.close();
});
