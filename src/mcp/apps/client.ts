/**
 * Whether the client of a request shows MCP Apps views (extension `io.modelcontextprotocol/ui`, spec
 * 2026-01-26 "Client<>Server Capability Negotiation": `capabilities.extensions["io.modelcontextprotocol/ui"]
 * .mimeTypes` includes `text/html;profile=mcp-app`). Only such clients get the views' `_meta` in tools/list
 * and the view data in tool results; every other client sees exactly what it saw before views existed.
 *
 * - 2026-07-28 (stateless): the request's own `_meta["io.modelcontextprotocol/clientCapabilities"]`.
 * - Legacy revisions: capabilities are declared once, at `initialize`, and this server keeps no session
 *   state. When the client declares the extension there, the initialize response carries an
 *   `Mcp-Session-Id` that says so (basic/transports "Session Management": the server MAY assign one; the
 *   client MUST send it back): `ui1.<16 random bytes>.<HMAC>`, base64url, keyed from the application key.
 *   Nothing is stored: a request carrying a valid one is from a client that declared the extension; an
 *   absent, unknown or altered one only means "no views" (never 404). Clients that do not declare the
 *   extension get no session id, as before.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isObject } from "../jsonrpc.ts";
import { META_CAPABILITIES, type Revision } from "../revision.ts";
import { UI_EXTENSION, VIEW_MIME_TYPE } from "../views/catalog.ts";

/** What the server knows about the client of one request. */
export interface ClientFeatures {
  /** The client shows MCP Apps views. */
  views: boolean;
}

export const NO_FEATURES: ClientFeatures = Object.freeze({ views: false });
const WITH_VIEWS: ClientFeatures = Object.freeze({ views: true });

/** True when `capabilities` (ClientCapabilities) declares the UI extension with the MCP Apps MIME type. */
export function declaresViews(capabilities: unknown): boolean {
  if (!isObject(capabilities) || !isObject(capabilities.extensions)) return false;
  const ui = capabilities.extensions[UI_EXTENSION];
  return isObject(ui) && Array.isArray(ui.mimeTypes) && ui.mimeTypes.includes(VIEW_MIME_TYPE);
}

/** Mints and recognises the legacy session ids that say "this client shows views". */
export interface ViewSessions {
  mint(): string;
  /** True when `id` is one this service minted. */
  valid(id: string | undefined): boolean;
}

const PREFIX = "ui1";

/** Builds the codec from the application encryption key (base64); the HMAC key is HKDF-derived from it. */
export function createViewSessions(appKeyBase64: string): ViewSessions {
  const key = Buffer.from(
    hkdfSync("sha256", Buffer.from(appKeyBase64, "base64"), "", "social-mcp views session id v1", 32),
  );
  const mac = (nonce: string) =>
    createHmac("sha256", key).update(`${PREFIX}.${nonce}`).digest("base64url").slice(0, 22);
  return {
    mint() {
      const nonce = randomBytes(16).toString("base64url");
      return `${PREFIX}.${nonce}.${mac(nonce)}`;
    },
    valid(id) {
      if (id === undefined || id.length > 100) return false;
      const [prefix, nonce, sig, extra] = id.split(".");
      if (prefix !== PREFIX || !nonce || !sig || extra !== undefined) return false;
      const want = Buffer.from(mac(nonce));
      const got = Buffer.from(sig);
      return want.length === got.length && timingSafeEqual(want, got);
    },
  };
}

/**
 * The features of the client of `params` under `revision`: the request's declared capabilities
 * (2026-07-28; a session id is ignored there) or the legacy session id in `headers` (any other value of the
 * header, malformed included, is ignored as it always was).
 */
export function clientFeatures(
  revision: Revision,
  params: Record<string, unknown> | undefined,
  headers: IncomingHttpHeaders,
  sessions: ViewSessions,
): ClientFeatures {
  if (revision.kind === "current") {
    const meta = params?._meta;
    return isObject(meta) && declaresViews(meta[META_CAPABILITIES]) ? WITH_VIEWS : NO_FEATURES;
  }
  const id = headers["mcp-session-id"];
  return typeof id === "string" && sessions.valid(id.trim()) ? WITH_VIEWS : NO_FEATURES;
}
