/**
 * Signed, expiring public URLs of media assets, for networks that pull media (Instagram `image_url` /
 * `video_url`, TikTok PULL_FROM_URL): `{PUBLIC_BASE_URL}/media/public/{asset}?exp={unix seconds}&sig={HMAC}`.
 * The signature is HMAC-SHA-256 over `{asset}.{exp}` with a key derived from the application encryption key
 * (every configured key verifies, so a rotated key keeps recent URLs valid), base64url. Served by
 * src/web/media-public.ts; anything unsigned, tampered or expired is 404.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** Lifetime of a signed media URL, seconds (1 hour). */
export const PUBLIC_MEDIA_TTL = 3600;

function keyOf(encryptionKey: string): Buffer {
  return createHash("sha256").update(`media-public-url\n${encryptionKey}`).digest();
}

function mac(key: Buffer, assetId: string, exp: number): string {
  return createHmac("sha256", key).update(`${assetId}.${exp}`).digest("base64url");
}

/**
 * The URL prefix every signed media URL starts with, `{PUBLIC_BASE_URL}/media/public/`: what an operator
 * verifies with a network that pulls only from verified prefixes (TikTok PULL_FROM_URL).
 */
export function publicMediaPrefix(publicBaseUrl: string): string {
  return `${publicBaseUrl}/media/public/`;
}

/**
 * The signed URL of `assetId`, valid until `now + ttlSeconds`.
 * @param encryptionKeys the application keys (the first signs).
 */
export function signedMediaUrl(
  publicBaseUrl: string,
  encryptionKeys: readonly string[],
  assetId: string,
  now: Date,
  ttlSeconds = PUBLIC_MEDIA_TTL,
): string {
  const exp = Math.floor(now.getTime() / 1000) + ttlSeconds;
  const sig = mac(keyOf(encryptionKeys[0]!), assetId, exp);
  return `${publicMediaPrefix(publicBaseUrl)}${assetId}?exp=${exp}&sig=${sig}`;
}

/** True when `sig` signs (`assetId`, `exp`) with one of the keys and `exp` is after `now`. */
export function verifyMediaSignature(
  encryptionKeys: readonly string[],
  assetId: string,
  exp: unknown,
  sig: unknown,
  now: Date,
): boolean {
  if (typeof exp !== "string" || !/^\d{1,12}$/.test(exp) || typeof sig !== "string" || sig.length > 100)
    return false;
  const e = Number(exp);
  if (e * 1000 <= now.getTime()) return false;
  const given = Buffer.from(sig);
  return encryptionKeys.some((k) => {
    const want = Buffer.from(mac(keyOf(k), assetId, e));
    return want.length === given.length && timingSafeEqual(want, given);
  });
}
