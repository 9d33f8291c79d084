/**
 * The developer guide and the network rules as MCP resources (MCP server/resources; DESIGN.md section 3:
 * hosts that never show the server instructions still let the agent open what a tool description points at).
 * Both are Markdown documents codegen writes (generated/guide.md, generated/network-rules.md), served with
 * `text/markdown` and with `{base_url}` replaced by this service's address, so every URL in them is absolute.
 * Every token may list and read them: they describe the service, not the user's records.
 */
import { readFileSync } from "node:fs";

/** One document resource. */
export interface DocResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: "text/markdown";
  /** The file under generated/. */
  file: string;
}

/** The documents, in the order resources/list gives them (after the views). */
export const DOC_RESOURCES: readonly DocResource[] = [
  {
    uri: "docs://social-mcp/guide",
    name: "guide",
    title: "Developer guide",
    description:
      "How to use the tools: the result envelope and `next`, states and what to do in each, approval, long polls, idempotency keys and retries, errors, limits, credits, and every tool with an example.",
    mimeType: "text/markdown",
    file: "guide.md",
  },
  {
    uri: "docs://social-mcp/network-rules",
    name: "network-rules",
    title: "Network rules",
    description:
      "What each network accepts in one post (text length, hashtags, images, videos, aspect ratios): publish_post, schedule_post and check_post apply it.",
    mimeType: "text/markdown",
    file: "network-rules.md",
  },
];

/** The text of `doc` for a service at `baseUrl` (read from generated/ once per process and kept). */
export function docText(doc: DocResource, baseUrl: string, cache: Map<string, string>): string {
  let text = cache.get(doc.uri);
  if (text === undefined) {
    text = readFileSync(new URL(`../../generated/${doc.file}`, import.meta.url), "utf8").replaceAll(
      "{base_url}",
      baseUrl,
    );
    cache.set(doc.uri, text);
  }
  return text;
}
