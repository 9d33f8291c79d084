/**
 * MCP Apps on the wire (extension io.modelcontextprotocol/ui, spec 2026-01-26; docs/mcp-apps.md): the
 * capabilities in server/discover and initialize; tools/list's `_meta.ui.resourceUri` only for clients that
 * declare the extension (per request on 2026-07-28, through the session id minted at initialize on legacy
 * revisions), exactly the old listing for the others; resources/list scope-filtered like tools,
 * resources/read with the view's HTML, MIME type and CSP, -32602 with the URI otherwise; the view data of a
 * tool result only for clients that show views. Every answer is validated against the official schema of
 * its revision (test/helpers/mcp-client.ts).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { TOOLS } from "../../generated/registry.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { VIEW_MIME_TYPE, VIEWS } from "../../src/mcp/views/catalog.ts";
import { VIEW_BUILDERS } from "../../src/mcp/apps/view-data.ts";
import { startTestApp } from "../helpers/app.ts";
import { VIEWS_CAPABILITIES } from "../helpers/app-host.ts";
import { rpc, type RpcOptions } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";
import { account, imagePost } from "../tools/carousels/fixtures.ts";

const app = await startTestApp({ queue: false, env: { CORS_ALLOWED_ORIGINS: "https://host.example" } });
const me = await app.user();
const all = (await connect(app, me, [...ALL_SCOPES])).token;

const WIRED = TOOLS.filter((t) => t._meta).map((t) => [t.name, t._meta!.ui.resourceUri] as const);

const current = (token: string, capabilities: object = VIEWS_CAPABILITIES): RpcOptions => ({
  token,
  meta: {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  },
});

async function legacySession(capabilities: object): Promise<string | null> {
  const r = await rpc(
    app.resource,
    "initialize",
    { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "host", version: "1" } },
    { token: all, revision: "2025-11-25" },
  );
  assert.equal(r.status, 200);
  return r.headers.get("mcp-session-id");
}

async function listTools(options: RpcOptions): Promise<any[]> {
  const tools: any[] = [];
  let cursor: string | undefined;
  do {
    const r = await rpc(app.resource, "tools/list", cursor ? { cursor } : {}, options);
    assert.equal(r.status, 200, r.text);
    tools.push(...r.body.result.tools);
    cursor = r.body.result.nextCursor;
  } while (cursor);
  return tools;
}

describe("capabilities", () => {
  it("server/discover and initialize declare tools, resources, prompts, completions and the UI extension", async () => {
    const d = await rpc(app.resource, "server/discover", {}, { token: all });
    const i = await rpc(
      app.resource,
      "initialize",
      { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "l", version: "1" } },
      { token: all, revision: "2025-06-18" },
    );
    for (const caps of [d.body.result.capabilities, i.body.result.capabilities])
      assert.deepEqual(caps, {
        tools: {},
        resources: {},
        prompts: {},
        completions: {},
        extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [VIEW_MIME_TYPE] } },
      });
  });

  it("initialize mints a session id only for a client that declares the extension with the view MIME type", async () => {
    assert.equal(await legacySession({}), null);
    assert.equal(await legacySession({ extensions: { "io.modelcontextprotocol/ui": {} } }), null);
    assert.equal(
      await legacySession({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html"] } } }),
      null,
    );
    const id = await legacySession(VIEWS_CAPABILITIES);
    assert.match(id ?? "", /^ui1\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
    assert.notEqual(id, await legacySession(VIEWS_CAPABILITIES), "each initialize gets its own id");
  });

  it("a web host on an allow-listed origin may read the session id and send it back (CORS)", async () => {
    const preflight = await fetch(app.resource, {
      method: "OPTIONS",
      headers: {
        origin: "https://host.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version, mcp-session-id",
      },
    });
    assert.equal(preflight.status, 204);
    assert.match(
      (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase(),
      /mcp-session-id/,
    );
    const r = await rpc(
      app.resource,
      "initialize",
      {
        protocolVersion: "2025-11-25",
        capabilities: VIEWS_CAPABILITIES,
        clientInfo: { name: "web", version: "1" },
      },
      { token: all, revision: "2025-11-25", headers: { origin: "https://host.example" } },
    );
    assert.ok(r.headers.get("mcp-session-id"));
    assert.match((r.headers.get("access-control-expose-headers") ?? "").toLowerCase(), /mcp-session-id/);
  });
});

describe("tools/list", () => {
  it("names the view of the 11 wired tools for a client that shows views (2026-07-28, per request)", async () => {
    assert.deepEqual(WIRED.map(([n]) => n).sort(), [
      "approve_carousel",
      "create_image_post",
      "create_text_post",
      "generate_carousel",
      "get_automation_run",
      "get_carousel",
      "get_post",
      "list_deliveries",
      "publish_post",
      "run_automation",
      "schedule_post",
    ]);
    const tools = await listTools(current(all));
    for (const [name, uri] of WIRED) {
      const t = tools.find((x) => x.name === name);
      assert.deepEqual(t._meta, { ui: { resourceUri: uri }, "ui/resourceUri": uri }, name);
    }
    assert.ok(tools.filter((t) => t._meta).length === WIRED.length);
  });

  it("is byte for byte the old listing for clients without the extension (both revisions)", async () => {
    const plain = await rpc(app.resource, "tools/list", {}, current(all, {}));
    const shown = await rpc(app.resource, "tools/list", {}, current(all));
    assert.ok(!plain.text.includes("resourceUri"));
    assert.ok(shown.text.includes("resourceUri"));
    const legacy = await rpc(app.resource, "tools/list", {}, { token: all, revision: "2025-11-25" });
    assert.ok(!legacy.text.includes("_meta"));
    const forged = await rpc(
      app.resource,
      "tools/list",
      {},
      {
        token: all,
        revision: "2025-11-25",
        headers: { "mcp-session-id": "ui1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA" },
      },
    );
    assert.ok(
      JSON.stringify(forged.body.result) === JSON.stringify(legacy.body.result),
      "an unknown session id changes nothing",
    );
  });

  it("names the views on legacy revisions when the request carries the session id initialize minted", async () => {
    const id = (await legacySession(VIEWS_CAPABILITIES))!;
    const tools = await listTools({ token: all, revision: "2025-11-25", headers: { "mcp-session-id": id } });
    assert.equal(tools.filter((t) => t._meta?.ui?.resourceUri).length, WIRED.length);
  });
});

describe("resources", () => {
  it("lists a view only when the token may call one of its tools, then the two documents, with cache hints on 2026-07-28", async () => {
    const docs = ["docs://social-mcp/guide", "docs://social-mcp/network-rules"];
    const cases: Array<[string[], string[]]> = [
      [["read:content"], ["ui://social-mcp/carousel", "ui://social-mcp/post"]],
      [["read:schedules"], ["ui://social-mcp/post"]],
      [["read:automations"], ["ui://social-mcp/video"]],
      [["create:carousels"], ["ui://social-mcp/carousel"]],
      [["read:profile", "read:products"], []],
      [[...ALL_SCOPES], VIEWS.map((v) => v.uri)],
    ];
    for (const [scopes, uris] of cases) {
      const { token } = await connect(app, me, scopes);
      for (const revision of ["2026-07-28", "2025-11-25", "2025-06-18"] as const) {
        const r = await rpc(app.resource, "resources/list", {}, { token, revision });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(
          r.body.result.resources.map((x: { uri: string }) => x.uri),
          [...uris, ...docs],
          `${scopes} ${revision}`,
        );
        if (revision === "2026-07-28") {
          assert.equal(r.body.result.cacheScope, "private");
          assert.ok(Number.isInteger(r.body.result.ttlMs));
        }
      }
    }
  });

  it("reads each view as one HTML document with the MCP Apps MIME type and a CSP naming the service origin", async () => {
    for (const view of VIEWS) {
      for (const revision of ["2026-07-28", "2025-06-18"] as const) {
        const r = await rpc(app.resource, "resources/read", { uri: view.uri }, { token: all, revision });
        assert.equal(r.status, 200, r.text);
        const [c] = r.body.result.contents;
        assert.equal(r.body.result.contents.length, 1);
        assert.equal(c.uri, view.uri);
        assert.equal(c.mimeType, "text/html;profile=mcp-app");
        assert.match(c.text, /^<!doctype html>/);
        assert.match(c.text, /<script type="module">/);
        assert.doesNotMatch(c.text, /<script[^>]+src=|<link[^>]+href=|@import|https?:\/\/(?!www\.w3\.org)/);
        assert.deepEqual(c._meta.ui, { csp: { resourceDomains: [app.url] }, prefersBorder: true });
      }
    }
  });

  it("reads the guide and the network rules as Markdown with absolute URLs, for any token", async () => {
    const { token } = await connect(app, me, ["read:profile"]);
    for (const revision of ["2026-07-28", "2025-11-25"] as const) {
      const guide = await rpc(
        app.resource,
        "resources/read",
        { uri: "docs://social-mcp/guide" },
        { token, revision },
      );
      const [g] = guide.body.result.contents;
      assert.equal(g.mimeType, "text/markdown");
      assert.match(g.text, /^<!-- Generated by codegen/);
      assert.match(g.text, /## Network rules/);
      assert.doesNotMatch(g.text, /\{base_url\}/);
      assert.ok(g.text.includes(`${app.url}/developers/mcp/catalog.json`));
      const rules = await rpc(
        app.resource,
        "resources/read",
        { uri: "docs://social-mcp/network-rules" },
        { token, revision },
      );
      const [n] = rules.body.result.contents;
      assert.equal(n.mimeType, "text/markdown");
      assert.match(n.text, /\| X \| 280 /);
      assert.ok(n.text.includes(`${app.url}/review`));
    }
  });

  it("answers -32602 with the URI for an unknown resource or a view the token cannot reach", async () => {
    const { token } = await connect(app, me, ["read:profile"]);
    for (const [t, uri] of [
      [all, "ui://social-mcp/nothing"],
      [all, "test://nonexistent-resource"],
      [token, "ui://social-mcp/post"],
    ] as const) {
      const r = await rpc(app.resource, "resources/read", { uri }, { token: t });
      assert.equal(r.body.error.code, -32602);
      assert.deepEqual(r.body.error.data, { uri });
    }
  });

  it("has no resource templates and refuses a cursor it never gave", async () => {
    const r = await rpc(app.resource, "resources/templates/list", {}, { token: all });
    assert.deepEqual(r.body.result.resourceTemplates, []);
    const bad = await rpc(app.resource, "resources/list", { cursor: "x" }, { token: all });
    assert.equal(bad.body.error.code, -32602);
  });
});

describe("view data in tool results", () => {
  it("every wired tool has a view data builder", () => {
    for (const [name] of WIRED) assert.equal(typeof VIEW_BUILDERS[name], "function", name);
  });

  it("get_post carries the post view data only for a client that shows views", async () => {
    await account(app, me, "instagram", "Shop Insta");
    const postId = await imagePost(app, me, "x".repeat(300), 2);
    const args = { name: "get_post", arguments: { post_id: postId } };
    const plain = await rpc(app.resource, "tools/call", args, current(all, {}));
    assert.deepEqual(Object.keys(plain.body.result._meta), ["io.modelcontextprotocol/serverInfo"]);
    const legacy = await rpc(app.resource, "tools/call", args, { token: all, revision: "2025-11-25" });
    assert.equal(legacy.body.result._meta, undefined);

    const shown = await rpc(app.resource, "tools/call", args, current(all));
    const same = (r: any) => ({ ...r.body.result.structuredContent, request_id: undefined });
    assert.deepEqual(same(shown), same(plain), "the structured result is the same with or without views");
    assert.deepEqual(Object.keys(shown.body.result).sort(), [
      "_meta",
      "content",
      "resultType",
      "structuredContent",
    ]);
    const view = shown.body.result._meta["social-mcp/view"];
    assert.equal(view.view, "post");
    assert.equal(view.post.post_id, postId);
    assert.equal(view.post.media.length, 2);
    for (const m of view.post.media) {
      assert.ok(m.url.startsWith(`${app.url}/media/public/${m.asset_id}?exp=`), m.url);
      const file = await fetch(m.url);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get("content-type"), "image/jpeg");
    }
    // No destination yet: every network is previewed; X cuts the 300-character caption at 280.
    assert.deepEqual(
      view.networks.map((n: { network: string }) => n.network),
      ["instagram", "tiktok", "facebook", "youtube", "linkedin", "pinterest", "x"],
    );
    const x = view.networks.find((n: { network: string }) => n.network === "x");
    assert.equal(x.caption.kept.length, 280);
    assert.equal(x.caption.cut.length, 20);
    assert.match(x.problems.join(" "), /accepts at most 280/);
    const yt = view.networks.find((n: { network: string }) => n.network === "youtube");
    assert.match(yt.problems.join(" "), /needs a video/);
    assert.doesNotMatch(JSON.stringify(view), /token|secret/i);

    const id = (await legacySession(VIEWS_CAPABILITIES))!;
    const viaSession = await rpc(app.resource, "tools/call", args, {
      token: all,
      revision: "2025-11-25",
      headers: { "mcp-session-id": id },
    });
    assert.equal(viaSession.body.result._meta["social-mcp/view"].post.post_id, postId);
  });

  it("a review tool's approval_required result carries what the approval will do", async () => {
    const insta = await account(app, me, "instagram", "Shop Insta 2");
    const postId = await imagePost(app, me, "Summer sale", 1);
    const r = await rpc(
      app.resource,
      "tools/call",
      {
        name: "publish_post",
        arguments: { post_id: postId, social_account_ids: [insta], idempotency_key: randomUUID() },
      },
      current(all),
    );
    assert.equal(r.body.result.structuredContent.status, "approval_required", r.text);
    const view = r.body.result._meta["social-mcp/view"];
    assert.match(
      view.approval.summary,
      /Publish the image post “Summer sale” now to Shop Insta 2 \(Instagram\)/,
    );
    assert.deepEqual(view.approval.destinations, [
      { name: "Shop Insta 2", network: "instagram", label: "Instagram" },
    ]);
    assert.deepEqual(
      view.networks.map((n: { network: string }) => n.network),
      ["instagram"],
    );
    assert.deepEqual(view.networks[0].problems, []);
  });

  it("a failed call carries no view data", async () => {
    const r = await rpc(
      app.resource,
      "tools/call",
      { name: "get_post", arguments: { post_id: randomUUID() } },
      current(all),
    );
    assert.equal(r.body.result.isError, true);
    assert.deepEqual(Object.keys(r.body.result._meta), ["io.modelcontextprotocol/serverInfo"]);
  });
});
