/** The startup banner: what runs, the plans, the URLs, and live vs local/sandbox providers from ctx.providers. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startupBanner } from "../../src/cli/banner.ts";
import { loadConfig } from "../../src/config/index.ts";
import type { AppContext } from "../../src/context.ts";
import { inspectMediaBinaries } from "../../src/providers/media-binaries.ts";
import { buildProviders } from "../../src/providers/providers.ts";

function ctxWith(env: Record<string, string>, overrides = {}): AppContext {
  const config = loadConfig(env);
  return { config, providers: buildProviders(config, overrides) } as unknown as AppContext;
}

test("all: runs, plans, the MCP endpoint, reference, settings and local providers", () => {
  const ctx = ctxWith({ PUBLIC_BASE_URL: "https://social.example.com" });
  const text = startupBanner(ctx, { command: "all", port: 3000, embeddedDb: true }).join("\n");
  assert.match(text, /^Social MCP listening on port 3000/);
  assert.match(text, /runs: +HTTP server \+ queue worker \+ maintenance/);
  assert.match(
    text,
    /plans: +new users start on creator; creator \(2 workspaces, 2 automations, 100 credits\)/,
  );
  assert.match(text, /MCP endpoint: +https:\/\/social\.example\.com\/mcp/);
  assert.match(text, /reference: +https:\/\/social\.example\.com\/developers\/mcp/);
  assert.match(text, /settings: +https:\/\/social\.example\.com\/settings\/integrations\/mcp/);
  assert.match(text, /AI text: +local \(offline stand-in\)/);
  assert.match(text, /AI image: +local \(offline stand-in\)/);
  assert.match(
    text,
    /social: +sandbox \(labelled, offline\): instagram, tiktok, facebook, youtube, linkedin, pinterest, x/,
  );
  assert.match(text, /database: +embedded PostgreSQL/);
});

test("a live AI text provider and a live network are shown as such, the other networks as sandbox, without secrets", () => {
  const ctx = ctxWith({
    AI_TEXT_PROVIDER: "openai-compatible",
    AI_TEXT_BASE_URL: "https://llm.example.net/v1",
    AI_TEXT_API_KEY: "sk-very-secret-key",
    AI_TEXT_MODEL: "gpt-test",
    INSTAGRAM_CLIENT_ID: "ig-app",
    INSTAGRAM_CLIENT_SECRET: "ig-secret-value",
  });
  const text = startupBanner(ctx, { command: "serve", port: 8080, embeddedDb: false }).join("\n");
  assert.match(text, /AI text: +openai-compatible \(live\), model gpt-test at llm\.example\.net/);
  assert.match(text, /social: +live: instagram; sandbox \(labelled, offline\): tiktok, facebook/);
  assert.doesNotMatch(text, /ig-secret-value/);
  assert.match(text, /database: +external PostgreSQL/);
  assert.match(text, /runs: +HTTP server only/);
  assert.ok(!text.includes("sk-very-secret-key"));
});

test("worker: no URLs, says it is a worker", () => {
  const text = startupBanner(ctxWith({}), { command: "worker", embeddedDb: false }).join("\n");
  assert.match(text, /^Social MCP worker started/);
  assert.doesNotMatch(text, /MCP endpoint/);
});

test("TikTok live: the banner names the public media URL prefix to verify with TikTok; not otherwise", () => {
  const live = ctxWith({
    PUBLIC_BASE_URL: "https://social.example.com",
    TIKTOK_CLIENT_ID: "tt-key",
    TIKTOK_CLIENT_SECRET: "tt-secret-value",
  });
  const text = startupBanner(live, { command: "all", port: 3000, embeddedDb: true }).join("\n");
  assert.match(
    text,
    /TikTok: +verify the URL prefix https:\/\/social\.example\.com\/media\/public\/ for the TikTok app \(photo posts are pulled from it; else url_ownership_unverified\)/,
  );
  assert.doesNotMatch(text, /tt-secret-value/);
  const sandbox = startupBanner(ctxWith({}), { command: "all", port: 3000, embeddedDb: true }).join("\n");
  assert.doesNotMatch(sandbox, /verify the URL prefix/);
});

test("the banner names the ffmpeg and ffprobe versions in use and their memory bound, or says they are missing", async () => {
  const ctx = ctxWith({});
  const media = await inspectMediaBinaries(ctx.config.media);
  const text = startupBanner(ctx, { command: "all", port: 3000, embeddedDb: true, media }).join("\n");
  const line = text.split("\n").find((l) => l.trim().startsWith("ffmpeg:"));
  assert.ok(line, text);
  assert.ok(line.includes(`ffmpeg ${media.ffmpeg.version} (${media.ffmpeg.path})`), line);
  assert.ok(line.includes(`ffprobe ${media.ffprobe.version}`), line);
  assert.match(line, /each run bounded to 2 GiB of memory$/);
  assert.doesNotMatch(line, /WARNING/);
  const missingCtx = ctxWith({ FFMPEG_PATH: "/nonexistent/ffmpeg" });
  const missing = startupBanner(missingCtx, {
    command: "all",
    port: 3000,
    embeddedDb: true,
    media: await inspectMediaBinaries(missingCtx.config.media),
  }).join("\n");
  assert.match(
    missing,
    /ffmpeg: +not available \(ffmpeg not found or not working\): video rendering and video uploads are unavailable/,
  );
});
