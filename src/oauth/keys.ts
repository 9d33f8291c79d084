/**
 * Token signing keys as jose key objects: the first configured key signs, every
 * configured key verifies (rotation keeps old public keys valid until their tokens expire). The public
 * parts are published as a JWK set at /mcp/oauth/jwks.json.
 */
import { createLocalJWKSet, importJWK, type JWK, type JWTVerifyGetKey } from "jose";
import type { KeyMaterial } from "../keys.ts";

export interface SigningKeys {
  /** The active private key and its `kid`. */
  sign: { key: CryptoKey | Uint8Array; kid: string; alg: "ES256" };
  /** Resolves a verification key from the token header's `kid`. */
  verify: JWTVerifyGetKey;
  /** The public JWK set `{keys: [...]}` (no private members). */
  jwks: { keys: JWK[] };
}

const PRIVATE_MEMBERS = new Set(["d", "p", "q", "dp", "dq", "qi", "oth", "k"]);
const cache = new WeakMap<KeyMaterial, Promise<SigningKeys>>();

/** Public part of a private JWK. */
export function publicJwk(jwk: JWK): JWK {
  const out: JWK = {};
  for (const [k, v] of Object.entries(jwk))
    if (!PRIVATE_MEMBERS.has(k)) (out as Record<string, unknown>)[k] = v;
  out.alg ??= "ES256";
  out.use ??= "sig";
  return out;
}

async function build(material: KeyMaterial): Promise<SigningKeys> {
  const active = material.signingKeys[0];
  if (!active?.kid) throw new Error("no active signing key");
  const key = await importJWK({ ...active, alg: "ES256" }, "ES256");
  const jwks = { keys: material.signingKeys.map(publicJwk) };
  return { sign: { key, kid: active.kid, alg: "ES256" }, verify: createLocalJWKSet(jwks), jwks };
}

/** The signing keys of `material`, imported once per key set. @throws when there is no active key. */
export function signingKeys(material: KeyMaterial): Promise<SigningKeys> {
  let p = cache.get(material);
  if (!p) {
    p = build(material);
    cache.set(material, p);
  }
  return p;
}
