/**
 * The views as MCP resources (MCP server/resources; MCP Apps spec 2026-01-26 "UI Resource Format",
 * "Resource Discovery"): `resources/list` lists a view only when the token's scopes allow one of the tools
 * that name it (tools.yaml `_meta.ui.resourceUri`), like tools/list lists tools; `resources/read` serves the
 * view's self-contained HTML document (built by codegen into generated/views/<name>.html) with
 * `text/html;profile=mcp-app` and its CSP: media come from the service's own origin (signed
 * `/media/public/` URLs), the view makes no network request of its own. The answer is the same for every
 * client; an unknown URI, or a view none of whose tools the token may call, is -32602 "Resource not found"
 * with `data.uri` (SEP-2164). The guide and the network rules follow the views as Markdown documents, for
 * every token (../doc-resources.ts).
 */
import { readFileSync } from "node:fs";
import type { McpUiResourceMeta } from "@modelcontextprotocol/ext-apps";
import type { RegisteredTool } from "../../tool-contract.ts";
import { DOC_RESOURCES, docText } from "../doc-resources.ts";
import { RPC, RpcError } from "../jsonrpc.ts";
import { VIEW_MIME_TYPE, VIEWS, type ViewSpec } from "../views/catalog.ts";

/** One entry of resources/list (`_meta.ui` for views only). */
export interface WireResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  _meta?: { ui: McpUiResourceMeta };
}

/** The contents of resources/read for one view or document (`_meta.ui` for views only). */
export interface ViewContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta?: { ui: McpUiResourceMeta };
}

export interface ResourceCatalog {
  /** The views the scopes allow, in VIEWS order, then the documents. */
  list(scopes: ReadonlySet<string>): WireResource[];
  /** @throws RpcError -32602 (with `data.uri`) for an unknown or unreachable URI. */
  read(uri: unknown, scopes: ReadonlySet<string>): ViewContents[];
}

/** The built HTML document of `view` (generated/views/<name>.html). */
function viewDocument(view: ViewSpec): string {
  return readFileSync(new URL(`../../../generated/views/${view.name}.html`, import.meta.url), "utf8");
}

/**
 * Builds the catalog over `tools` (the registry) for a service whose media are served from `publicBaseUrl`.
 * Documents are read from disk on first use and kept.
 */
export function createResourceCatalog(
  tools: readonly RegisteredTool[],
  publicBaseUrl: string,
): ResourceCatalog {
  const baseUrl = publicBaseUrl.replace(/\/+$/, "");
  const ui: McpUiResourceMeta = {
    csp: { resourceDomains: [new URL(publicBaseUrl).origin] },
    prefersBorder: true,
  };
  const views = VIEWS.map((view) => ({
    view,
    scopes: new Set(tools.filter((t) => t._meta?.ui.resourceUri === view.uri).map((t) => t.scope)),
    wire: {
      uri: view.uri,
      name: view.name,
      title: view.title,
      description: view.description,
      mimeType: VIEW_MIME_TYPE,
      _meta: { ui },
    } satisfies WireResource,
  })).filter((v) => v.scopes.size > 0);
  const documents = new Map<string, string>();
  const docs = DOC_RESOURCES.map(
    (d): WireResource => ({
      uri: d.uri,
      name: d.name,
      title: d.title,
      description: d.description,
      mimeType: d.mimeType,
    }),
  );
  const allowed = (scopes: ReadonlySet<string>, of: ReadonlySet<string>) =>
    [...of].some((s) => scopes.has(s));
  return {
    list(scopes) {
      return [...views.filter((v) => allowed(scopes, v.scopes)).map((v) => v.wire), ...docs];
    },
    read(uri, scopes) {
      const doc = DOC_RESOURCES.find((d) => d.uri === uri);
      if (doc) return [{ uri: doc.uri, mimeType: doc.mimeType, text: docText(doc, baseUrl, documents) }];
      const found = views.find((v) => v.view.uri === uri);
      if (!found || !allowed(scopes, found.scopes))
        throw new RpcError(RPC.invalidParams, "Resource not found", 200, {
          uri: typeof uri === "string" ? uri.slice(0, 200) : null,
        });
      let text = documents.get(found.view.name);
      if (text === undefined) {
        text = viewDocument(found.view);
        documents.set(found.view.name, text);
      }
      return [{ uri: found.view.uri, mimeType: VIEW_MIME_TYPE, text, _meta: { ui } }];
    },
  };
}
