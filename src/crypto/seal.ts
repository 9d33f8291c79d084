/**
 * Encryption at rest (service spec 2.5): AES-256-GCM with the application key.
 * Sealed text format: `v1.<key_id>.<iv b64url>.<ciphertext b64url>.<tag b64url>`; the key id (first 8 hex
 * chars of SHA-256 of the key) lets a rotated key be recognised.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

export interface Sealer {
  /** Identifier of the active key (8 hex chars). */
  readonly keyId: string;
  /** Encrypts a JSON value. */
  seal(value: unknown): string;
  /** Decrypts a sealed text. @throws Error when the key id is unknown or the ciphertext was tampered with. */
  open<T = unknown>(sealed: string): T;
}

/**
 * Builds a sealer from base64 keys; the first is used for new data, all can open.
 * @throws Error when a key is not 32 bytes.
 */
export function createSealer(keysBase64: string[]): Sealer {
  const keys = new Map<string, Buffer>();
  let active: string | undefined;
  for (const k of keysBase64) {
    const key = Buffer.from(k, "base64");
    if (key.length !== 32) throw new Error("application encryption key must be 32 bytes (base64)");
    const id = createHash("sha256").update(key).digest("hex").slice(0, 8);
    keys.set(id, key);
    active ??= id;
  }
  if (!active) throw new Error("no application encryption key");
  const activeId = active;
  return {
    keyId: activeId,
    seal(value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", keys.get(activeId)!, iv);
      const ct = Buffer.concat([cipher.update(JSON.stringify(value ?? null), "utf8"), cipher.final()]);
      return [
        "v1",
        activeId,
        iv.toString("base64url"),
        ct.toString("base64url"),
        cipher.getAuthTag().toString("base64url"),
      ].join(".");
    },
    open<T>(sealed: string): T {
      const [v, id, iv, ct, tag] = sealed.split(".");
      const key = id ? keys.get(id) : undefined;
      if (v !== "v1" || !key || !iv || ct === undefined || !tag)
        throw new Error("sealed value: unknown format or key");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      const pt = Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]);
      return JSON.parse(pt.toString("utf8")) as T;
    },
  };
}

/** SHA-256 hex digest of a string (tokens, codes, idempotency keys are stored only as this). */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
