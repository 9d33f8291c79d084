/**
 * The maintenance pass purges short-lived records after their lifetime (src/operations/purge.ts): expired
 * browser sessions, consent nonces, authorization codes (a day after expiry, so a late replay still
 * revokes its grant), connect states and abandoned Page picks with their sealed Page tokens, and idle
 * sign-in throttle rows. Records still within their lifetime stay.
 */
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { test } from "node:test";
import { rowBinding } from "../../src/crypto/seal.ts";
import { beginAttempt } from "../../src/domain/account/login-throttle.ts";
import { runMaintenance } from "../../src/operations/maintenance.ts";
import { CODE_REUSE_WATCH_SECONDS } from "../../src/operations/purge.ts";
import { startTestApp, TestClock } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";

const clock = new TestClock();
const app = await startTestApp({ queue: false, clock });
const me = await app.user();
const hex = () => randomBytes(32).toString("hex");

test("expired sessions, consent nonces, codes, connect states and Page picks are deleted; live ones stay", async () => {
  const now = clock.now();
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
  const db = app.ctx.db;
  const session = (expires: Date) =>
    db("browser_sessions")
      .insert({ id_hash: hex(), user_id: me.user_id, csrf_token: "c", expires_at: expires })
      .returning("id_hash");
  const [oldSession] = await session(at(-60));
  const [liveSession] = await session(at(3600));
  const nonce = (expires: Date, used: boolean) =>
    db("oauth_consent_nonces")
      .insert({
        nonce_hash: hex(),
        session_id_hash: "s",
        request_hash: "r",
        request: "{}",
        expires_at: expires,
        used_at: used ? now : null,
      })
      .returning("nonce_hash");
  const [usedNonce] = await nonce(at(-1), true);
  const [unusedNonce] = await nonce(at(-600), false);
  const [liveNonce] = await nonce(at(300), false);
  const c = await connect(app, me, ["read:profile"]);
  const code = (expires: Date) =>
    db("oauth_authorization_codes")
      .insert({
        code_hash: hex(),
        grant_id: c.grantId,
        client_id: c.clientId,
        redirect_uri: "http://127.0.0.1/cb",
        code_challenge: "x",
        resource: app.resource,
        scope: "read:profile",
        expires_at: expires,
      })
      .returning("code_hash");
  const [longExpiredCode] = await code(at(-CODE_REUSE_WATCH_SECONDS - 60));
  const [recentlyExpiredCode] = await code(at(-120));
  const [liveCode] = await code(at(60));
  const state = async (expires: Date, pick: boolean) => {
    const id = randomUUID();
    await db("social_connect_states").insert({
      id,
      state_hash: hex(),
      session_hash: "s",
      user_id: me.user_id,
      workspace_id: me.workspace_id,
      network: "facebook",
      redirect_uri: "http://127.0.0.1/cb",
      pending_accounts_sealed: pick
        ? app.ctx.sealer.seal(
            { tokens: { accessToken: "page-token" }, accounts: [] },
            rowBinding("social_connect_states", "pending_accounts_sealed", id),
          )
        : null,
      expires_at: expires,
    });
    return id;
  };
  const abandonedPick = await state(at(-60), true);
  const expiredState = await state(at(-1), false);
  const livePick = await state(at(500), true);
  await beginAttempt(db, "idle@example.test", "192.0.2.1", at(-2 * 86_400), app.ctx.config.limits.login);
  await beginAttempt(db, "recent@example.test", "192.0.2.1", at(-60), app.ctx.config.limits.login);

  const report = await runMaintenance(app.ctx);
  assert.ok(report.purged.browser_sessions >= 1);
  assert.ok(report.purged.oauth_consent_nonces >= 2);
  assert.ok(report.purged.oauth_authorization_codes >= 1);
  assert.ok(report.purged.social_connect_states >= 2);
  assert.ok(report.purged.login_throttle >= 1);
  const has = async (table: string, column: string, value: string) =>
    (await db(table)
      .where({ [column]: value })
      .first()) !== undefined;
  assert.equal(await has("browser_sessions", "id_hash", oldSession.id_hash), false);
  assert.equal(await has("browser_sessions", "id_hash", liveSession.id_hash), true);
  assert.equal(await has("oauth_consent_nonces", "nonce_hash", usedNonce.nonce_hash), false);
  assert.equal(await has("oauth_consent_nonces", "nonce_hash", unusedNonce.nonce_hash), false);
  assert.equal(await has("oauth_consent_nonces", "nonce_hash", liveNonce.nonce_hash), true);
  assert.equal(await has("oauth_authorization_codes", "code_hash", longExpiredCode.code_hash), false);
  assert.equal(
    await has("oauth_authorization_codes", "code_hash", recentlyExpiredCode.code_hash),
    true,
    "kept a day after expiry for reuse detection",
  );
  assert.equal(await has("oauth_authorization_codes", "code_hash", liveCode.code_hash), true);
  assert.equal(
    await has("social_connect_states", "id", abandonedPick),
    false,
    "the sealed Page tokens are gone",
  );
  assert.equal(await has("social_connect_states", "id", expiredState), false);
  assert.equal(await has("social_connect_states", "id", livePick), true);
  assert.deepEqual(
    (await db("login_throttle").select("failures")).length,
    1,
    "only the recent sign-in attempt's row stays",
  );
});
