/**
 * Key material: the application encryption key and the token signing keys (service spec 1.12).
 * From env when set. Outside production, missing keys are generated once and kept in `<dataDir>/keys.json`
 * (mode 0600; the signing keys sealed with the application key) with a warning; in production a missing key is a start-up error.
 * Signing keys are a JWK set of private ES256 keys; the first is active, the others only verify
 * (rotation keeps old public keys valid until their tokens expire).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { type AppKey, createSealer, keyHashId } from "./crypto/seal.ts";
import { type Config, ConfigError } from "./config/index.ts";
import type { Logger } from "./log.ts";

export interface KeyMaterial {
  /** The application keys with their ids, newest first (the newest seals, all open: src/crypto/seal.ts). */
  appKeys: AppKey[];
  /** The same keys' base64 values, newest first (signed media URLs derive their HMAC keys from them). */
  encryptionKeys: string[];
  /** Private JWKs with `kid` and `alg`; first is active. */
  signingKeys: JWK[];
}

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  jwk.kid = `k-${Date.now().toString(36)}`;
  jwk.alg = "ES256";
  jwk.use = "sig";
  return jwk;
}

function parseJwks(text: string, variable: string): JWK[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(variable, "is not JSON (expected a JWK set with private keys)");
  }
  const keys = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new ConfigError(variable, "holds no keys");
  for (const k of keys as JWK[]) {
    if (!k || typeof k !== "object" || !k.kid || !k.d || !k.kty)
      throw new ConfigError(variable, "every key needs kty, kid and the private part d");
  }
  return keys as JWK[];
}

/**
 * Resolves the keys for `config`.
 * @throws ConfigError naming APP_ENCRYPTION_KEY or SIGNING_KEYS when missing in production or malformed.
 */
export async function resolveKeys(config: Config, log: Logger): Promise<KeyMaterial> {
  let signing: JWK[] | undefined;
  if (config.signingKeys) signing = parseJwks(config.signingKeys, "SIGNING_KEYS");
  else if (config.signingKeysFile) {
    if (!existsSync(config.signingKeysFile))
      throw new ConfigError("SIGNING_KEYS_FILE", "file does not exist");
    signing = parseJwks(await readFile(config.signingKeysFile, "utf8"), "SIGNING_KEYS_FILE");
  }
  const enc = config.appEncryptionKeys;
  if (enc && signing) return { appKeys: enc, encryptionKeys: enc.map((k) => k.key), signingKeys: signing };
  if (config.production) {
    throw new ConfigError(
      enc ? "SIGNING_KEYS" : "APP_ENCRYPTION_KEY",
      enc ? "is required in production" : "(or APP_ENCRYPTION_KEYS) is required in production",
    );
  }
  const file = path.resolve(config.dataDir, "keys.json");
  const stored: { app_encryption_key?: string; signing_keys_sealed?: string } = existsSync(file)
    ? JSON.parse(await readFile(file, "utf8"))
    : {};
  let changed = false;
  let appKey = enc?.[0]?.key ?? stored.app_encryption_key;
  if (!appKey) {
    appKey = randomBytes(32).toString("base64");
    stored.app_encryption_key = appKey;
    changed = true;
  }
  // Signing keys at rest are sealed with the application key (AES-256-GCM), never plain JWKs.
  const sealer = createSealer([appKey]);
  const binding = { purpose: "dev-signing-keys" } as const;
  if (!signing && stored.signing_keys_sealed) {
    try {
      signing = sealer.open<JWK[]>(stored.signing_keys_sealed, binding);
    } catch {
      throw new ConfigError(
        "APP_ENCRYPTION_KEY",
        `cannot open the signing keys in ${file}: the key differs from the one that sealed them`,
      );
    }
  }
  if (!signing) {
    signing = [await newSigningKey()];
    stored.signing_keys_sealed = sealer.seal(signing, binding);
    changed = true;
  }
  if (changed) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    log.warn({ file }, "generated development keys (set APP_ENCRYPTION_KEY and SIGNING_KEYS in production)");
  }
  const appKeys = enc ?? [{ id: keyHashId(appKey), key: appKey }];
  return { appKeys, encryptionKeys: appKeys.map((k) => k.key), signingKeys: signing };
}
