/**
 * HTTP layer of POST /mcp (service spec 4.1, 5.3, 5.12, 7, 8; mcp-protocol.md "Transport"): methods,
 * content type, body size, message shape, notifications, 401 challenges, Origin/CORS, Host, MCP disabled,
 * the per-IP limit.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { describe, it } from "node:test";
import { runAdmin } from "../../src/cli/admin.ts";
import { startTestApp } from "../helpers/app.ts";
import { browserSession } from "../helpers/browser.ts";
import { postRaw, rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";
import { fixtureTool, startFixtureEndpoint } from "./fixture.ts";

const tools = [fixtureTool({ name: "ping_tool" }, async () => ({ data: {} }))];
const app = await startTestApp({ queue: false, env: { CORS_ALLOWED_ORIGINS: "https://app.example" } });
const ep = await startFixtureEndpoint(app, tools);
const who = await app.user();
const { token } = await ep.connect(who, ["read:profile"]);
const json = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${token}`,
};

/** Sends a request with an arbitrary Host header (fetch cannot), and optionally an Origin. */
function withHost(url: string, host: string, body: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        headers: {
          ...json,
          host,
          "mcp-protocol-version": "2025-11-25",
          ...(origin ? { origin } : {}),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("transport", () => {
  it("answers GET and DELETE with 405 and Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(ep.url, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
      });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("allow"), "POST");
    }
  });

  it("requires Content-Type application/json (415)", async () => {
    const r = await postRaw(ep.url, "{}", { ...json, "content-type": "text/plain" });
    assert.equal(r.status, 415);
  });

  it("refuses a body over 256 KiB with 413", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(256 * 1024) },
    });
    const r = await postRaw(ep.url, big, json);
    assert.equal(r.status, 413);
  });

  it("answers unparsable JSON with 400 / -32700", async () => {
    const r = await postRaw(ep.url, "{nope", json);
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, -32700);
  });

  it("refuses arrays (batches) and responses with 400 / -32600", async () => {
    const batch = await postRaw(ep.url, JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]), json);
    assert.equal(batch.status, 400);
    assert.equal(batch.body.error.code, -32600);
    const response = await postRaw(ep.url, JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }), json);
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, -32600);
    assert.equal(response.body.id, 1);
  });

  it("accepts a notification with 202 and an empty body", async () => {
    const r = await postRaw(ep.url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), {
      ...json,
      "mcp-protocol-version": "2025-11-25",
    });
    assert.equal(r.status, 202);
    assert.equal(r.text, "");
  });

  it("never issues a session id", async () => {
    const r = await rpc(
      ep.url,
      "initialize",
      { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      { revision: "2025-11-25", token },
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("mcp-session-id"), null);
  });
});

describe("authentication", () => {
  it("answers a request without a token with 401 and resource_metadata, without an error code", async () => {
    const r = await rpc(ep.url, "tools/list", {}, { validate: false });
    assert.equal(r.status, 401);
    const challenge = r.headers.get("www-authenticate") ?? "";
    assert.match(challenge, /^Bearer /);
    assert.match(
      challenge,
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    assert.doesNotMatch(challenge, /error=/);
  });

  it('answers a bad token with 401 and error="invalid_token"', async () => {
    const r = await rpc(ep.url, "tools/list", {}, { token: `${token.slice(0, -4)}AAAA`, validate: false });
    assert.equal(r.status, 401);
    assert.match(r.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  });

  it("refuses a signed-in browser session cookie alone with 401 (no session-cookie fallback, spec 5.2)", async () => {
    const { cookie } = await browserSession(app.ctx, who.user_id);
    const origin = new URL(app.resource).origin;
    for (const method of ["tools/list", "tools/call"]) {
      const params = method === "tools/call" ? { name: "get_profile", arguments: {} } : {};
      const r = await rpc(app.resource, method, params, { headers: { cookie, origin }, validate: false });
      assert.equal(r.status, 401, method);
      const challenge = r.headers.get("www-authenticate") ?? "";
      assert.match(challenge, /^Bearer .*resource_metadata="/);
      assert.doesNotMatch(challenge, /error=/, "no token was presented");
    }
    // The same session cookie is accepted by the browser pages, so the 401 is not a broken session.
    const page = await fetch(`${origin}/settings/integrations/mcp`, {
      headers: { cookie },
      redirect: "manual",
    });
    assert.equal(page.status, 200);
    await page.arrayBuffer();
  });

  it("refuses a token minted for another resource", async () => {
    const other = await connect(app, who, ["read:profile"]); // audience: the main app's resource
    const r = await rpc(ep.url, "tools/list", {}, { token: other.token, validate: false });
    assert.equal(r.status, 401);
  });
});

describe("Accept header (2026-07-28 transport: must allow application/json and text/event-stream)", () => {
  it("answers a 2026-07-28 request whose Accept does not allow both with 406 / -32600, echoing the id", async () => {
    for (const accept of [
      "application/json",
      "text/event-stream",
      "application/json, text/event-stream;q=0",
      "text/html",
    ]) {
      const r = await rpc(ep.url, "tools/list", {}, { token, id: 7, headers: { accept }, validate: false });
      assert.equal(r.status, 406, accept);
      assert.equal(r.body.error.code, -32600, accept);
      assert.equal(r.body.id, 7);
      assert.match(r.body.error.message, /application\/json and text\/event-stream/);
    }
  });

  it("a 2026-07-28 request without any Accept header gets 406", async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(ep.url);
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${token}`,
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/list",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    assert.equal(status, 406);
  });

  it("wildcards that allow both are accepted; legacy revisions keep serving a JSON-only Accept", async () => {
    for (const accept of ["*/*", "application/*, text/*", "text/event-stream, application/json;q=0.5"]) {
      const r = await rpc(ep.url, "tools/list", {}, { token, headers: { accept } });
      assert.equal(r.status, 200, accept);
    }
    const legacy = await rpc(
      ep.url,
      "tools/list",
      {},
      { token, revision: "2025-11-25", headers: { accept: "application/json" } },
    );
    assert.equal(legacy.status, 200);
  });
});

describe("Origin, CORS and Host", () => {
  it("allows requests without Origin (native clients)", async () => {
    const r = await rpc(ep.url, "tools/list", {}, { token });
    assert.equal(r.status, 200);
  });

  it("refuses an Origin that is not allow-listed with 403", async () => {
    const r = await rpc(
      ep.url,
      "tools/list",
      {},
      { token, headers: { origin: "https://evil.example" }, validate: false },
    );
    assert.equal(r.status, 403);
    assert.equal(r.headers.get("access-control-allow-origin"), null);
  });

  it("answers an allow-listed Origin with CORS headers (no wildcard) exposing WWW-Authenticate and Mcp-Protocol-Version", async () => {
    const r = await rpc(ep.url, "tools/list", {}, { token, headers: { origin: "https://app.example" } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("access-control-allow-origin"), "https://app.example");
    assert.equal(r.headers.get("access-control-allow-credentials"), null);
    const exposed = (r.headers.get("access-control-expose-headers") ?? "").toLowerCase();
    assert.match(exposed, /www-authenticate/);
    assert.match(exposed, /mcp-protocol-version/);
    const preflight = await fetch(ep.url, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example");
    const badPreflight = await fetch(ep.url, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    assert.equal(badPreflight.status, 403);
  });

  it("answers a Host other than the resource's with 404 (DNS rebinding)", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    assert.equal(await withHost(ep.url, "evil.example.com", body), 404);
    assert.equal(await withHost(ep.url, new URL(ep.url).host, body), 200);
  });

  it("accepts the service's own origin and loopback origins matching the Host; refuses other loopback ports", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const { host, port } = new URL(ep.url);
    // The resource's own origin (what the conformance check dns-rebinding localhost-host-valid-accepted sends).
    assert.equal(await withHost(ep.url, host, body, `http://${host}`), 200);
    // The same local server reached as localhost or [::1]: Origin and Host name the same loopback host:port.
    assert.equal(await withHost(ep.url, `localhost:${port}`, body, `http://localhost:${port}`), 200);
    assert.equal(await withHost(ep.url, `[::1]:${port}`, body, `http://[::1]:${port}`), 200);
    // A page on another local port, a loopback origin that is not the Host, an opaque origin: refused.
    assert.equal(await withHost(ep.url, `localhost:${port}`, body, "http://localhost:1"), 403);
    assert.equal(await withHost(ep.url, `localhost:${port}`, body, `http://[::1]:${port}`), 403);
    assert.equal(await withHost(ep.url, host, body, "null"), 403);
    assert.equal(await withHost(ep.url, host, body, `https://evil.example`), 403);
  });
});

describe("MCP disabled and per-IP limit", () => {
  it("`admin mcp disable` turns /mcp and the OAuth routes off on a running instance within seconds, and back", async () => {
    const live = await startTestApp({ queue: false });
    const who2 = await live.user();
    const c = await connect(live, who2, ["read:profile"]);
    const status = async () =>
      (await rpc(live.resource, "tools/list", {}, { token: c.token, validate: false })).status;
    const metadata = async () => {
      const r = await fetch(`${live.url}/.well-known/oauth-authorization-server`);
      await r.arrayBuffer();
      return r.status;
    };
    /** Polls until `probe` answers `want` (the instance rereads the flag every few seconds). */
    const until = async (probe: () => Promise<number>, want: number) => {
      const deadline = Date.now() + 30_000;
      let got = await probe();
      while (got !== want && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        got = await probe();
      }
      return got;
    };
    assert.equal(await status(), 200);
    await runAdmin(live.ctx.db, ["mcp", "disable"]);
    assert.equal(await until(status, 404), 404);
    assert.equal(await until(metadata, 404), 404);
    await runAdmin(live.ctx.db, ["mcp", "enable"]);
    assert.equal(await until(status, 200), 200);
    assert.equal(await until(metadata, 200), 200);
    await live.close();
  });

  it("answers 404 on /mcp when MCP is disabled", async () => {
    const off = await startTestApp({ queue: false, env: { MCP_ENABLED: "false" } });
    const r = await rpc(off.resource, "tools/list", {}, { validate: false });
    assert.equal(r.status, 404);
    const get = await fetch(off.resource);
    assert.equal(get.status, 404);
  });

  it("answers 429 with Retry-After after the per-IP budget", async () => {
    const limited = await startTestApp({ queue: false, env: { RATE_LIMIT_MCP_IP: "3" } });
    const lep = await startFixtureEndpoint(limited, tools);
    const u = await limited.user();
    const { token: t } = await lep.connect(u, ["read:profile"]);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof rpc>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await rpc(lep.url, "tools/list", {}, { token: t, validate: false });
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const retry = Number(last?.headers.get("retry-after"));
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60);
  });
});
