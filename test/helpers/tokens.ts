/**
 * Test shortcut to a connection: registers a client, records a grant for (user, workspace, scopes) and
 * mints an access token exactly as the token endpoint does (src/oauth/tokens.ts): ES256, `kid`,
 * `typ: at+jwt`, iss/aud/sub/client_id/scope/grant_id/workspace_id/jti/iat/exp, a row in
 * oauth_access_tokens; times come from the app's clock. End-to-end tests use the real OAuth flow instead
 * (test/helpers/oauth-flow.ts); this is for tests of the MCP endpoint and the tools.
 */
import { randomUUID } from "node:crypto";
import { importJWK, SignJWT } from "jose";
import type { Config } from "../../src/config/index.ts";
import type { Clock } from "../../src/context.ts";
import type { Knex } from "../../src/db/knex.ts";
import type { KeyMaterial } from "../../src/keys.ts";

/** What minting needs: a TestApp, or a cluster of processes sharing one database and keys. */
export interface TokenIssuer {
  ctx: {
    db: Knex;
    config: Pick<Config, "resourceUrl" | "issuerUrl">;
    keys: Pick<KeyMaterial, "signingKeys">;
    clock: Clock;
  };
}

export interface TestConnection {
  token: string;
  grantId: string;
  clientId: string;
  jti: string;
}

/** Creates a client + grant and returns a valid 1-hour access token for it. */
export async function connect(
  app: TokenIssuer,
  who: { user_id: string; workspace_id: string },
  scopes: string[],
): Promise<TestConnection> {
  const { db, config, keys } = app.ctx;
  const [client] = await db("oauth_clients")
    .insert({
      client_name: "test client",
      redirect_uris: JSON.stringify(["http://127.0.0.1/callback"]),
      grant_types: JSON.stringify(["authorization_code", "refresh_token"]),
      response_types: JSON.stringify(["code"]),
    })
    .returning("client_id");
  const [grant] = await db("oauth_grants")
    .insert({
      user_id: who.user_id,
      workspace_id: who.workspace_id,
      client_id: client.client_id,
      resource: config.resourceUrl,
      scope: scopes.join(" "),
    })
    .returning("id");
  const jti = randomUUID();
  const now = Math.floor(app.ctx.clock.now().getTime() / 1000);
  await db("oauth_access_tokens").insert({
    jti,
    grant_id: grant.id,
    scope: scopes.join(" "),
    expires_at: new Date((now + 3600) * 1000),
  });
  const jwk = keys.signingKeys[0]!;
  const key = await importJWK(jwk, "ES256");
  const token = await new SignJWT({
    client_id: client.client_id,
    scope: scopes.join(" "),
    grant_id: grant.id,
    workspace_id: who.workspace_id,
  })
    .setProtectedHeader({ alg: "ES256", kid: jwk.kid!, typ: "at+jwt" })
    .setIssuer(config.issuerUrl)
    .setAudience(config.resourceUrl)
    .setSubject(who.user_id)
    .setJti(jti)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(key);
  return { token, grantId: grant.id, clientId: client.client_id, jti };
}
