import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { pino } from "pino";
import { boot } from "../../src/bootstrap.ts";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { freshDatabase } from "../helpers/db.ts";

test("defaults: base URL from PORT, resource {base}/mcp, issuer {base}, service spec 8 limits", () => {
  const c = loadConfig({ PORT: "4100" });
  assert.equal(c.publicBaseUrl, "http://localhost:4100");
  assert.equal(c.resourceUrl, "http://localhost:4100/mcp");
  assert.equal(c.issuerUrl, "http://localhost:4100");
  assert.equal(c.mcpEnabled, true);
  assert.deepEqual(c.budgets, { read: 120, write: 30, ai: 5, approval: 5, delete: 3 });
  assert.equal(c.limits.mcpPerIp, 240);
  assert.equal(c.limits.download, 5);
  assert.ok(c.worker.queueRetryAfterSeconds > 1800);
});

test("explicit URLs lose trailing slashes and override the defaults", () => {
  const c = loadConfig({
    PUBLIC_BASE_URL: "https://mcp.example.com/",
    MCP_RESOURCE_URL: "https://api.example.com/mcp/",
  });
  assert.equal(c.publicBaseUrl, "https://mcp.example.com");
  assert.equal(c.resourceUrl, "https://api.example.com/mcp");
  assert.equal(c.issuerUrl, "https://mcp.example.com");
});

const bad: Array<[Record<string, string>, string]> = [
  [{ PORT: "http" }, "PORT"],
  [{ PORT: "70000" }, "PORT"],
  [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
  [{ PUBLIC_BASE_URL: "ftp://x" }, "PUBLIC_BASE_URL"],
  [{ MCP_ENABLED: "yes" }, "MCP_ENABLED"],
  [{ CORS_ALLOWED_ORIGINS: "*" }, "CORS_ALLOWED_ORIGINS"],
  [{ CORS_ALLOWED_ORIGINS: "https://a.example/path" }, "CORS_ALLOWED_ORIGINS"],
  [{ APP_ENCRYPTION_KEY: "short" }, "APP_ENCRYPTION_KEY"],
  [{ RATE_LIMIT_READS: "0" }, "RATE_LIMIT_READS"],
  [{ QUEUE_RETRY_AFTER_SECONDS: "1800" }, "QUEUE_RETRY_AFTER_SECONDS"],
  [{ AI_TEXT_PROVIDER: "openai-compatible" }, "AI_TEXT_BASE_URL"],
  [{ AI_TEXT_PROVIDER: "gpt" }, "AI_TEXT_PROVIDER"],
  [{ AI_IMAGE_PROVIDER: "openai-compatible" }, "AI_IMAGE_BASE_URL"],
  [{ AI_IMAGE_PROVIDER: "dall-e" }, "AI_IMAGE_PROVIDER"],
  [{ AI_IMAGE_TIMEOUT_SECONDS: "0" }, "AI_IMAGE_TIMEOUT_SECONDS"],
  [{ AI_IMAGE_CONCURRENCY: "0" }, "AI_IMAGE_CONCURRENCY"],
  [{ AI_IMAGE_CONCURRENCY: "17" }, "AI_IMAGE_CONCURRENCY"],
  [{ AI_IMAGE_CONCURRENCY: "two" }, "AI_IMAGE_CONCURRENCY"],
  [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
  [{ RATE_LIMIT_REGISTER_IP_HOUR: "500" }, "RATE_LIMIT_REGISTER_IP_HOUR"],
  [{ RATE_LIMIT_REGISTER_HOUR: "20" }, "RATE_LIMIT_REGISTER_IP_HOUR"],
  [{ NODE_ENV: "production", FETCH_ALLOW_LOOPBACK_PORT: "8080" }, "FETCH_ALLOW_LOOPBACK_PORT"],
];

for (const [env, variable] of bad) {
  test(`a bad ${variable} is a ConfigError naming it (${JSON.stringify(env)})`, () => {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) =>
        e instanceof ConfigError && e.variable === variable && e.message.startsWith(`${variable}:`),
    );
  });
}

test("AI_IMAGE_CONCURRENCY: images generated at once per run, 4 by default, 1 to 16", () => {
  assert.equal(loadConfig({}).image.concurrency, 4);
  assert.equal(loadConfig({ AI_IMAGE_CONCURRENCY: "1" }).image.concurrency, 1);
  assert.equal(loadConfig({ AI_IMAGE_CONCURRENCY: "16" }).image.concurrency, 16);
});

test("ANALYTICS_SYNC_CONCURRENCY: account jobs per worker, 8 by default, 1 to 64, apart from WORKER_CONCURRENCY", () => {
  assert.equal(loadConfig({}).analytics.syncConcurrency, 8);
  assert.equal(
    loadConfig({ ANALYTICS_SYNC_CONCURRENCY: "64", WORKER_CONCURRENCY: "2" }).analytics.syncConcurrency,
    64,
  );
  assert.equal(loadConfig({ WORKER_CONCURRENCY: "2" }).worker.concurrency, 2);
  assert.throws(
    () => loadConfig({ ANALYTICS_SYNC_CONCURRENCY: "0" }),
    /ANALYTICS_SYNC_CONCURRENCY: must be >= 1/,
  );
  assert.throws(() => loadConfig({ ANALYTICS_SYNC_CONCURRENCY: "65" }), /ANALYTICS_SYNC_CONCURRENCY/);
});

test("TRUST_PROXY: off by default, a hop count, or proxy addresses/CIDRs; `true` and junk are refused", () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: "false" }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: "0" }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: "1" }).trustProxy, 1);
  assert.equal(loadConfig({ TRUST_PROXY: "2" }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 192.168.1.7,fd00::/8,loopback" }).trustProxy, [
    "10.0.0.0/8",
    "192.168.1.7",
    "fd00::/8",
    "loopback",
  ]);
  assert.throws(() => loadConfig({ TRUST_PROXY: "true" }), /TRUST_PROXY: true would trust every/);
  assert.throws(() => loadConfig({ TRUST_PROXY: "10.0.0.0/99" }), /"10.0.0.0\/99" is not a hop count/);
  assert.throws(() => loadConfig({ TRUST_PROXY: "proxy.example" }), ConfigError);
  assert.throws(() => loadConfig({ TRUST_PROXY: "99" }), /between 0 and 32/);
});

test("LINKEDIN_ORGANIZATIONS: off by default (member scopes only); true asks for the page scopes; junk refused", () => {
  assert.equal(loadConfig({}).social.linkedinOrganizations, false);
  assert.equal(loadConfig({ LINKEDIN_ORGANIZATIONS: "true" }).social.linkedinOrganizations, true);
  assert.throws(() => loadConfig({ LINKEDIN_ORGANIZATIONS: "yes" }), ConfigError);
});

test("the test hooks are accepted only with a loopback target while PUBLIC_BASE_URL is loopback", () => {
  const hook = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return "accepted";
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e.message;
    }
  };
  for (const base of ["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:9000"]) {
    assert.equal(hook({ PUBLIC_BASE_URL: base, SOCIAL_HTTP_OVERRIDE: "http://127.0.0.1:9999" }), "accepted");
    assert.equal(hook({ PUBLIC_BASE_URL: base, SOCIAL_HTTP_OVERRIDE: "http://[::1]:9999" }), "accepted");
    assert.equal(hook({ PUBLIC_BASE_URL: base, SOCIAL_HTTP_OVERRIDE: "http://localhost:9999" }), "accepted");
    assert.equal(hook({ PUBLIC_BASE_URL: base, FETCH_ALLOW_LOOPBACK_PORT: "8081" }), "accepted");
  }
  assert.equal(
    hook({ SOCIAL_HTTP_OVERRIDE: "http://127.0.0.1:9999" }),
    "accepted",
    "the default base is localhost",
  );
  for (const target of ["http://10.0.0.5:9999", "http://fakes.example:80", "http://[2001:db8::1]:9999"])
    assert.equal(
      hook({ PUBLIC_BASE_URL: "http://127.0.0.1:3000", SOCIAL_HTTP_OVERRIDE: target }),
      `SOCIAL_HTTP_OVERRIDE: must point at a loopback address (127.0.0.1, [::1] or localhost), not ${new URL(target).hostname}`,
    );
  for (const name of ["SOCIAL_HTTP_OVERRIDE", "FETCH_ALLOW_LOOPBACK_PORT"]) {
    const value = name === "SOCIAL_HTTP_OVERRIDE" ? "http://127.0.0.1:9999" : "8081";
    assert.equal(
      hook({ PUBLIC_BASE_URL: "https://social.example.com", [name]: value }),
      `${name}: is a test-only setting, accepted only while PUBLIC_BASE_URL is a loopback address (it is https://social.example.com)`,
    );
    assert.equal(
      hook({ NODE_ENV: "production", PUBLIC_BASE_URL: "http://127.0.0.1:3000", [name]: value }),
      `${name}: is a test-only setting and is refused in production`,
    );
  }
});

test("start-up logs a warning for each test hook that is set", async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "warn" }, { write: (l: string) => lines.push(JSON.parse(l)) });
  const booted = await boot({
    env: {
      DATABASE_URL: (await freshDatabase()).url,
      DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "smcp-hooks-")),
      PUBLIC_BASE_URL: "http://127.0.0.1:3999",
      SOCIAL_HTTP_OVERRIDE: "http://127.0.0.1:9",
      FETCH_ALLOW_LOOPBACK_PORT: "9",
    },
    migrate: false,
    logger,
  });
  await booted.close();
  const warnings = lines.filter((l) => l.level === 40).map((l) => String(l.msg));
  assert.ok(
    warnings.some((m) => m.startsWith("SOCIAL_HTTP_OVERRIDE is set")),
    warnings.join("\n"),
  );
  assert.ok(
    warnings.some((m) => m.startsWith("FETCH_ALLOW_LOOPBACK_PORT is set")),
    warnings.join("\n"),
  );
});
