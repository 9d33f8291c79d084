/**
 * Opaque, tamper-checked pagination cursors for tools/list (MCP server/utilities/pagination). A cursor is
 * `base64url(JSON {o: offset, s: scope fingerprint}) "." base64url(HMAC-SHA256)[0..22]`, keyed with a key
 * derived from the application key, so a client can neither forge an offset nor reuse a cursor minted for
 * another scope set. A bad cursor is a JSON-RPC -32602.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

export interface CursorCodec {
  encode(offset: number, scopeKey: string): string;
  /** @returns the offset, or undefined when the cursor is malformed, forged or for another scope set. */
  decode(cursor: string, scopeKey: string): number | undefined;
}

/** Builds the codec from the application encryption key (base64); the HMAC key is HKDF-derived from it. */
export function createCursorCodec(appKeyBase64: string): CursorCodec {
  const key = Buffer.from(
    hkdfSync("sha256", Buffer.from(appKeyBase64, "base64"), "", "social-mcp tools/list cursor v1", 32),
  );
  const mac = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url").slice(0, 22);
  const fingerprint = (scopeKey: string) =>
    createHash("sha256").update(scopeKey).digest("base64url").slice(0, 11);
  return {
    encode(offset, scopeKey) {
      const payload = Buffer.from(JSON.stringify({ o: offset, s: fingerprint(scopeKey) })).toString(
        "base64url",
      );
      return `${payload}.${mac(payload)}`;
    },
    decode(cursor, scopeKey) {
      if (cursor.length > 512) return undefined;
      const [payload, sig, extra] = cursor.split(".");
      if (!payload || !sig || extra !== undefined) return undefined;
      const want = Buffer.from(mac(payload));
      const got = Buffer.from(sig);
      if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
      try {
        const body = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
          o?: unknown;
          s?: unknown;
        };
        if (body.s !== fingerprint(scopeKey)) return undefined;
        return typeof body.o === "number" && Number.isSafeInteger(body.o) && body.o > 0 ? body.o : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
