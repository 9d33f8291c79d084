/**
 * Keys and secrets: the application keys that seal secrets at rest (src/crypto/seal.ts; README "Rotating
 * the application key"), the ES256 signing keys of tokens (src/keys.ts), and the argon2id cost of new
 * password hashes (RFC 9106; OWASP Password Storage Cheat Sheet,
 * https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html).
 */
import Type from "typebox";
import { keyHashId } from "../crypto/seal.ts";
import { type ConfigArea, ConfigError, type EnvReader, Int, Str } from "./env.ts";

const DEV_KEYS = "generated under `./.data/keys.json` outside production";

export const KeysEnv = Type.Object({
  APP_ENCRYPTION_KEY: Str(
    { pattern: "^[A-Za-z0-9+/_-]{43}=?$" },
    {
      description:
        "one base64 32-byte AES-256-GCM key instead of `APP_ENCRYPTION_KEYS` (its id: the first 8 hex digits of its SHA-256): arguments, results, provider secrets at rest, each bound to its row",
      defaultText: DEV_KEYS,
    },
  ),
  APP_ENCRYPTION_KEYS: Str(
    {
      pattern: "^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/_-]{43}=?( *, *[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/_-]{43}=?)*$",
    },
    {
      description:
        'the application keys, newest first, each with an id: `k2:BASE64,k1:BASE64` (ids `[A-Za-z0-9_-]{1,32}`; base64 32-byte AES-256-GCM keys). The newest seals, all open (section "Rotating the application key")',
      defaultText: "unset",
    },
  ),
  SIGNING_KEYS: Str(
    { minLength: 2 },
    {
      description: "JWK set of private ES256 keys; first signs, all verify (rotation)",
      defaultText: DEV_KEYS,
    },
  ),
  SIGNING_KEYS_FILE: Str(
    { minLength: 1 },
    { description: "a file holding the JWK set of `SIGNING_KEYS`", defaultText: DEV_KEYS },
  ),
  PASSWORD_HASH_MEMORY_KIB: Int(65_536, 19_456, 4_194_304, {
    description:
      "argon2id memory of new password hashes, KiB; at least OWASP's minimum 19456 (19 MiB). A stored hash keeps its own parameters, so a change applies to new passwords and locks nobody out. The test apps use the minimum",
  }),
  PASSWORD_HASH_TIME_COST: Int(3, 2, 20, {
    description: "argon2id passes of new password hashes; at least OWASP's minimum 2",
  }),
  PASSWORD_HASH_PARALLELISM: Int(4, 1, 16, { description: "argon2id lanes of new password hashes" }),
});

/** argon2id parameters of new password hashes (see `KeysConfig.passwordHash`). */
export interface PasswordHashing {
  /** KiB of memory per hash. */
  memoryCost: number;
  /** Passes over the memory. */
  timeCost: number;
  /** Lanes (threads) per hash. */
  parallelism: number;
}

export interface KeysConfig {
  /**
   * The application keys, newest first (APP_ENCRYPTION_KEYS `id:base64,...`, or APP_ENCRYPTION_KEY as one key
   * with its hash id): the newest seals, all open (src/crypto/seal.ts); undefined outside production when
   * neither is set (src/keys.ts then keeps a development key).
   */
  appEncryptionKeys: Array<{ id: string; key: string }> | undefined;
  /** JSON JWK set text (private keys) or undefined. */
  signingKeys: string | undefined;
  signingKeysFile: string | undefined;
  /**
   * argon2id cost of new password hashes (RFC 9106): `memoryCost` KiB (PASSWORD_HASH_MEMORY_KIB, default
   * 65,536 = 64 MiB, at least 19,456 = 19 MiB), `timeCost` passes (PASSWORD_HASH_TIME_COST, default 3, at
   * least 2) and `parallelism` lanes (PASSWORD_HASH_PARALLELISM, default 4). The floor is OWASP's Password
   * Storage Cheat Sheet minimum (m=19 MiB, t=2, p=1). A stored hash carries its own parameters, so a change
   * applies to new passwords and never locks anyone out.
   */
  passwordHash: PasswordHashing;
}

export const keysArea: ConfigArea = { title: "Keys", schema: KeysEnv };

/**
 * The key settings.
 * @throws ConfigError naming APP_ENCRYPTION_KEYS or APP_ENCRYPTION_KEY, or a PASSWORD_HASH_* variable out
 * of its bounds.
 */
export function keysConfig(r: EnvReader): KeysConfig {
  return {
    appEncryptionKeys: appKeys(r.picked),
    signingKeys: r.picked.SIGNING_KEYS,
    signingKeysFile: r.picked.SIGNING_KEYS_FILE,
    passwordHash: {
      memoryCost: r.num("PASSWORD_HASH_MEMORY_KIB", 65_536),
      timeCost: r.num("PASSWORD_HASH_TIME_COST", 3),
      parallelism: r.num("PASSWORD_HASH_PARALLELISM", 4),
    },
  };
}

/**
 * The application keys of APP_ENCRYPTION_KEYS (`id:base64` entries, newest first) or APP_ENCRYPTION_KEY.
 * @throws ConfigError when both are set, an id repeats or a key is not 32 bytes.
 */
function appKeys(picked: Readonly<Record<string, string>>): Array<{ id: string; key: string }> | undefined {
  const list = picked.APP_ENCRYPTION_KEYS;
  const single = picked.APP_ENCRYPTION_KEY;
  if (list && single)
    throw new ConfigError(
      "APP_ENCRYPTION_KEYS",
      "set either APP_ENCRYPTION_KEYS or APP_ENCRYPTION_KEY, not both",
    );
  const keys = list
    ? list.split(",").map((entry) => {
        const [id, key] = entry.trim().split(":") as [string, string];
        return { id, key };
      })
    : single
      ? [{ id: keyHashId(single), key: single }]
      : undefined;
  const seen = new Set<string>();
  for (const k of keys ?? []) {
    const variable = list ? "APP_ENCRYPTION_KEYS" : "APP_ENCRYPTION_KEY";
    if (Buffer.from(k.key, "base64").length !== 32)
      throw new ConfigError(variable, `the key ${list ? `with id ${k.id} ` : ""}is not 32 bytes of base64`);
    if (seen.has(k.id)) throw new ConfigError(variable, `the key id ${k.id} is listed twice`);
    seen.add(k.id);
  }
  return keys;
}
