/**
 * The shared code that reads the networks' tables (src/providers/social/network-table.ts): the error
 * classification of api-errors.ts per network (given an answer, want the adapter error) and the authorize URL
 * and token requests of oauth-flow.ts (client id parameter, scope separator, PKCE, fixed parameters, client
 * authentication), against each network's own table. The adapters' end-to-end behaviour against the fakes is
 * in the per-network test files.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { apiError, failureKind } from "../../../src/providers/social/api-errors.ts";
import { META_GRAPH_API } from "../../../src/providers/social/facebook/graph.ts";
import { FACEBOOK } from "../../../src/providers/social/facebook/table.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import { INSTAGRAM } from "../../../src/providers/social/instagram/table.ts";
import { LINKEDIN } from "../../../src/providers/social/linkedin/table.ts";
import * as contract from "../../../src/providers/social/network.ts";
import type { ApiTable, NetworkTable } from "../../../src/providers/social/network-table.ts";
import { tableOAuth } from "../../../src/providers/social/oauth-flow.ts";
import { PINTEREST } from "../../../src/providers/social/pinterest/table.ts";
import { TIKTOK } from "../../../src/providers/social/tiktok/table.ts";
import { X } from "../../../src/providers/social/x/table.ts";
import { YOUTUBE } from "../../../src/providers/social/youtube/table.ts";

const NOW = new Date("2026-11-24T10:00:00Z");

describe("api-errors: each table classifies its network's answers", () => {
  const cases: Array<{
    api: ApiTable;
    status: number;
    code?: string | number;
    transient?: boolean;
    headers?: Record<string, string>;
    want: "auth" | "rate_limit" | "transient" | "rejected";
    wait?: number;
  }> = [
    { api: TIKTOK.api, status: 401, code: "access_token_invalid", want: "auth" },
    { api: TIKTOK.api, status: 200, code: "scope_not_authorized", want: "auth" },
    { api: TIKTOK.api, status: 200, code: "rate_limit_exceeded", want: "rate_limit", wait: 60 },
    { api: TIKTOK.api, status: 500, code: "internal_error", want: "transient" },
    { api: TIKTOK.api, status: 400, want: "transient" },
    { api: TIKTOK.api, status: 403, code: "url_ownership_unverified", want: "rejected" },
    { api: META_GRAPH_API, status: 400, code: 190, want: "auth" },
    { api: META_GRAPH_API, status: 403, code: 230, want: "auth" },
    {
      api: META_GRAPH_API,
      status: 400,
      code: 80002,
      headers: { "x-business-use-case-usage": '{"1":[{"estimated_time_to_regain_access":7}]}' },
      want: "rate_limit",
      wait: 420,
    },
    { api: META_GRAPH_API, status: 400, code: 100, transient: true, want: "transient" },
    { api: META_GRAPH_API, status: 400, code: 2, want: "transient" },
    { api: META_GRAPH_API, status: 400, code: 100, want: "rejected" },
    { api: PINTEREST.api, status: 403, code: 3, want: "auth" },
    {
      api: PINTEREST.api,
      status: 429,
      code: 8,
      headers: { "x-ratelimit-reset": "30" },
      want: "rate_limit",
      wait: 30,
    },
    { api: PINTEREST.api, status: 404, code: 40, want: "rejected" },
    { api: YOUTUBE.api, status: 403, code: "insufficientPermissions", want: "auth" },
    { api: YOUTUBE.api, status: 403, code: "userRateLimitExceeded", want: "rate_limit", wait: 60 },
    { api: YOUTUBE.api, status: 503, code: "backendError", want: "transient" },
    { api: YOUTUBE.api, status: 400, code: "invalidTitle", want: "rejected" },
    { api: LINKEDIN.api, status: 401, code: "REVOKED_ACCESS_TOKEN", want: "auth" },
    // LinkedIn's throttles reset at 00:00 UTC: 14 hours after 10:00.
    { api: LINKEDIN.api, status: 429, want: "rate_limit", wait: 14 * 3600 },
    { api: LINKEDIN.api, status: 422, code: "UNPROCESSABLE_ENTITY", want: "rejected" },
    {
      api: X.api,
      status: 429,
      headers: { "x-rate-limit-remaining": "0", "x-rate-limit-reset": String(NOW.getTime() / 1000 + 900) },
      want: "rate_limit",
      wait: 900,
    },
    { api: X.api, status: 502, want: "transient" },
  ];
  for (const c of cases) {
    test(`${c.api.name} HTTP ${c.status} ${c.code ?? ""} -> ${c.want}`, () => {
      const failure = {
        status: c.status,
        headers: new Headers(c.headers ?? {}),
        code: c.code,
        text: "the message",
        transient: c.transient,
      };
      assert.equal(failureKind(c.api.errors, failure), c.want);
      const err = apiError(c.api, failure, { afterCreate: true, now: NOW });
      const type = {
        auth: contract.NetworkAuthError,
        rate_limit: contract.NetworkRateLimitError,
        transient: contract.NetworkTransientError,
        rejected: contract.NetworkRejectedError,
      }[c.want];
      assert.ok(err instanceof type, err.name);
      assert.match(
        err.message,
        new RegExp(`${c.api.name}.*\\(${c.code ?? `HTTP ${c.status}`}\\): the message`),
      );
      if (err instanceof contract.NetworkRateLimitError) assert.equal(err.retryAfterSeconds, c.wait);
      if (err instanceof contract.NetworkTransientError) assert.equal(err.afterCreate, true);
    });
  }
});

/** A token endpoint that records each request and answers a token. */
async function tokenEndpoint() {
  const seen: Array<{ path: string; headers: Record<string, unknown>; form: URLSearchParams }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ path: req.url ?? "", headers: req.headers, form: new URLSearchParams(body) });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ access_token: "at-1", expires_in: 3600, scope: "a b" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { seen, http: createSocialHttp(`http://127.0.0.1:${port}`), close: () => server.close() };
}

describe("oauth-flow: each table's authorize URL and token requests", () => {
  const credentials = { clientId: "the-client", clientSecret: "the-secret" };
  const noAccounts = { accounts: async () => [] };
  const tables: NetworkTable[] = [TIKTOK, X, PINTEREST, YOUTUBE, LINKEDIN, FACEBOOK, INSTAGRAM];

  for (const table of tables) {
    test(`${table.name}: the authorize URL as the table says`, () => {
      const oauth = tableOAuth(
        table,
        credentials,
        { http: createSocialHttp(undefined), now: () => NOW },
        noAccounts,
      );
      const u = new URL(
        oauth.authorizeUrl({ state: "st", redirectUri: "https://app.test/cb", codeChallenge: "ch" }),
      );
      assert.equal(`${u.origin}${u.pathname}`, table.oauth.authorizeUrl);
      assert.equal(u.searchParams.get(table.oauth.clientIdParam), "the-client");
      assert.equal(u.searchParams.get("scope"), table.oauth.scopes.join(table.oauth.scopeSeparator));
      assert.equal(u.searchParams.get("response_type"), "code");
      assert.equal(u.searchParams.get("code_challenge"), table.oauth.pkce === "none" ? null : "ch");
      for (const [k, v] of Object.entries(table.oauth.authorizeParams ?? {}))
        assert.equal(u.searchParams.get(k), v);
      assert.equal(oauth.pkce, table.oauth.pkce !== "none");
      assert.deepEqual([...oauth.requiredScopes], [...(table.oauth.requiredScopes ?? table.oauth.scopes)]);
      if (table.oauth.pkce === "required")
        assert.throws(() => oauth.authorizeUrl({ state: "st", redirectUri: "https://app.test/cb" }), /PKCE/);
    });
  }

  for (const table of tables.filter((t) => t.oauth.tokenUrl)) {
    test(`${table.name}: code exchange and refresh authenticate the client as the table says`, async () => {
      const endpoint = await tokenEndpoint();
      try {
        const oauth = tableOAuth(table, credentials, { http: endpoint.http, now: () => NOW }, noAccounts);
        const tokens = await oauth.exchangeCode({
          code: "c1",
          redirectUri: "https://app.test/cb",
          codeVerifier: "v1",
        });
        assert.equal(tokens.accessToken, "at-1");
        assert.deepEqual(tokens.scopes, ["a", "b"]);
        const previous: contract.TokenSet = { accessToken: "old", refreshToken: "rt-1", scopes: ["x"] };
        const fresh = await oauth.refresh(previous);
        assert.equal(
          fresh.refreshToken,
          "rt-1",
          "a refresh answer without a refresh token keeps the old one",
        );
        await assert.rejects(oauth.refresh({ accessToken: "old", scopes: [] }), contract.NetworkAuthError);
        const [code, refresh] = endpoint.seen;
        assert.equal(`https:/${code!.path}`, table.oauth.tokenUrl);
        assert.equal(code!.form.get("grant_type"), "authorization_code");
        assert.equal(code!.form.get("code_verifier"), table.oauth.pkce === "none" ? null : "v1");
        for (const [k, v] of Object.entries(table.oauth.codeParams ?? {})) assert.equal(code!.form.get(k), v);
        assert.equal(refresh!.form.get("grant_type"), "refresh_token");
        assert.equal(refresh!.form.get("refresh_token"), "rt-1");
        const basic = `Basic ${Buffer.from("the-client:the-secret").toString("base64")}`;
        if (table.oauth.clientAuth === "body") {
          assert.equal(code!.form.get(table.oauth.clientIdParam), "the-client");
          assert.equal(code!.form.get("client_secret"), "the-secret");
          assert.equal(code!.headers.authorization, undefined);
        } else {
          assert.equal(code!.headers.authorization, basic);
          assert.equal(code!.form.get("client_secret"), null);
          assert.equal(
            code!.form.get("client_id"),
            table.oauth.clientAuth === "basic+id" ? "the-client" : null,
          );
        }
      } finally {
        endpoint.close();
      }
    });
  }
});
