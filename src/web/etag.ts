/** Strong ETags of static responses (RFC 9110 8.8.3) and the If-None-Match check (RFC 9110 13.1.2). */
import { createHash } from "node:crypto";

/** Strong ETag of `body`: `"` + base64url SHA-256 + `"`. */
export function etagOf(body: Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url")}"`;
}

/** True when `header` (an If-None-Match value) matches `etag` (weak comparison, RFC 9110 13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === opaque);
}
