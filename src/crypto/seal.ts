/**
 * Encryption at rest (service spec 2.5): AES-256-GCM with the application keys (README "Rotating the
 * application key").
 *
 * Keys: APP_ENCRYPTION_KEYS lists them newest first, each with an id (`id:base64,...`); a single
 * APP_ENCRYPTION_KEY is one key whose id is the first 8 hex digits of its SHA-256. The newest seals, every
 * listed key opens, so old values stay readable until `admin keys reseal` (src/cli/reseal.ts) re-seals them.
 *
 * Binding: every value is sealed for the place it is stored (`SealBinding`: a table, its sealed column and
 * the row's id, or a named purpose for values kept outside the database), passed to AES-GCM as additional
 * authenticated data `table:column:id`. A sealed value copied into another row, column or table does not
 * open. `seal` and `open` take the binding as a required argument, typed by the registry of sealed columns
 * below: a call without one, or with a column that is not sealed, does not compile.
 *
 * Formats: `v2.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts; bound). Values written before bindings
 * existed are `v1.<key hash id>.<iv>.<ciphertext>.<tag>` without additional data: they still open (so a
 * deployment keeps working) until `admin keys reseal` rewrites them as v2.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from "node:crypto";

/** Every sealed column, by table (the columns `admin keys reseal` rewrites). */
export const SEALED_COLUMNS = {
  operations: ["arguments_sealed", "accepted_sealed", "description_sealed", "result_sealed"],
  idempotency_records: ["response_sealed"],
  carousel_runs: ["brief_sealed", "instructions_sealed"],
  carousel_slides: ["image_prompt_sealed"],
  social_accounts: ["access_token_sealed", "refresh_token_sealed", "provider_metadata_sealed"],
  social_connect_states: ["code_verifier_sealed", "pending_accounts_sealed"],
} as const;

export type SealedTable = keyof typeof SEALED_COLUMNS;
export type SealedColumn<T extends SealedTable> = (typeof SEALED_COLUMNS)[T][number];

/** Sealed values that live outside a table row: what they are for. */
export type SealPurpose =
  /** The sandbox connector's authorization codes and tokens (src/providers/social/sandbox/sandbox.ts). */
  | "sandbox-token"
  /** The development signing keys in `<DATA_DIR>/keys.json` (src/keys.ts). */
  | "dev-signing-keys";

/**
 * Where a sealed value belongs: a row's sealed column (`id`: the row's primary key; for a composite key the
 * parts joined by `/`), or a purpose.
 */
export type SealBinding =
  | { [T in SealedTable]: { table: T; column: SealedColumn<T>; id: string } }[SealedTable]
  | { purpose: SealPurpose };

/** The binding of row `id`'s `column` in `table` (typed: only sealed columns). */
export function rowBinding<T extends SealedTable>(
  table: T,
  column: SealedColumn<T>,
  id: string,
): SealBinding {
  return { table, column, id } as SealBinding;
}

/** The additional authenticated data of `binding`. */
function aad(binding: SealBinding): Buffer {
  return Buffer.from(
    "purpose" in binding ? `purpose:${binding.purpose}` : `${binding.table}:${binding.column}:${binding.id}`,
    "utf8",
  );
}

export interface Sealer {
  /** Identifier of the newest key, which seals (`id` of APP_ENCRYPTION_KEYS, or the hash id). */
  readonly keyId: string;
  /** Encrypts a JSON value for `binding`, with the newest key. */
  seal(value: unknown, binding: SealBinding): string;
  /**
   * Decrypts a value sealed for `binding` with any configured key (and a v1 value sealed before bindings).
   * @throws Error when the format or key id is unknown, or the value was tampered with or sealed for
   *   another binding.
   */
  open<T = unknown>(sealed: string, binding: SealBinding): T;
  /** The id of the key `sealed` was sealed with and its format version, or undefined when unreadable. */
  describe(sealed: string): { version: "v1" | "v2"; keyId: string } | undefined;
}

/** One application key: its id and base64 32-byte value. */
export interface AppKey {
  id: string;
  key: string;
}

/** The id a key has without a configured one (and the id v1 values carry): 8 hex of its SHA-256. */
export function keyHashId(keyBase64: string): string {
  return createHash("sha256").update(Buffer.from(keyBase64, "base64")).digest("hex").slice(0, 8);
}

/**
 * Builds a sealer from keys, newest first: the first seals, all open. A key given as a plain base64 string
 * gets its hash id.
 * @throws Error when a key is not 32 bytes, an id repeats, or there is none.
 */
export function createSealer(keysIn: ReadonlyArray<AppKey | string>): Sealer {
  // KeyObjects made once: given a Buffer, every createCipheriv/createDecipheriv call makes one of its own.
  const byId = new Map<string, KeyObject>();
  const byHash = new Map<string, KeyObject>();
  for (const k of keysIn) {
    const { id, key: b64 } = typeof k === "string" ? { id: keyHashId(k), key: k } : k;
    const bytes = Buffer.from(b64, "base64");
    if (bytes.length !== 32) throw new Error("application encryption key must be 32 bytes (base64)");
    const key = createSecretKey(bytes);
    if (byId.has(id)) throw new Error(`application encryption key id ${id} is listed twice`);
    byId.set(id, key);
    byHash.set(keyHashId(b64), key);
  }
  const activeId = byId.keys().next().value;
  if (activeId === undefined) throw new Error("no application encryption key");
  const activeKey = byId.get(activeId)!;
  const parts = (sealed: string) => {
    const p = sealed.split(".");
    return p.length === 5 && (p[0] === "v1" || p[0] === "v2")
      ? { version: p[0] as "v1" | "v2", keyId: p[1]!, iv: p[2]!, ct: p[3]!, tag: p[4]! }
      : undefined;
  };
  return {
    keyId: activeId,
    seal(value, binding) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", activeKey, iv);
      cipher.setAAD(aad(binding));
      const ct = Buffer.concat([cipher.update(JSON.stringify(value ?? null), "utf8"), cipher.final()]);
      return [
        "v2",
        activeId,
        iv.toString("base64url"),
        ct.toString("base64url"),
        cipher.getAuthTag().toString("base64url"),
      ].join(".");
    },
    open<T>(sealed: string, binding: SealBinding): T {
      const p = parts(sealed);
      // v2: the configured id, or the hash id a key had while it was the single APP_ENCRYPTION_KEY.
      const key = p
        ? p.version === "v2"
          ? (byId.get(p.keyId) ?? byHash.get(p.keyId))
          : byHash.get(p.keyId)
        : undefined;
      if (!p || !key || !p.iv || !p.tag) throw new Error("sealed value: unknown format or key");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(p.iv, "base64url"));
      if (p.version === "v2") decipher.setAAD(aad(binding));
      decipher.setAuthTag(Buffer.from(p.tag, "base64url"));
      const pt = Buffer.concat([decipher.update(Buffer.from(p.ct, "base64url")), decipher.final()]);
      return JSON.parse(pt.toString("utf8")) as T;
    },
    describe(sealed) {
      const p = parts(sealed);
      return p ? { version: p.version, keyId: p.keyId } : undefined;
    },
  };
}

/** SHA-256 hex digest of a string (tokens, codes, idempotency keys are stored only as this). */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
