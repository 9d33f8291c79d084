/**
 * The guide's chapters on what the server offers besides tools: the rules for agents (the server's
 * `instructions`, word for word, from src/mcp/instructions.ts), the MCP Apps views (src/mcp/views/catalog.ts
 * and the tools that name them in tools.yaml) and the prompts (src/mcp/prompts/catalog.ts).
 */
import { AGENT_RULES, INSTRUCTIONS_INTRO } from "../../src/mcp/instructions.ts";
import { PROMPTS } from "../../src/mcp/prompts/catalog.ts";
import { UI_EXTENSION, VIEW_META_KEY, VIEW_MIME_TYPE, VIEWS } from "../../src/mcp/views/catalog.ts";
import type { CodegenContext } from "../context.ts";
import { cell } from "./guide-tools.ts";

/** "Rules for agents": the server's instructions. */
export function rulesChapter(): string {
  return `## Rules for agents

The server sends these rules as its \`instructions\` (\`server/discover\`, \`initialize\`). ${INSTRUCTIONS_INTRO}

${AGENT_RULES.map((r) => `- **${r.title}** ${r.text}`).join("\n")}
`;
}

/** "Views (MCP Apps)": what clients that show views get. */
export function viewsChapter(ctx: CodegenContext): string {
  const rows = VIEWS.map((v) => {
    const tools = ctx.tools.filter((t) => t._meta?.ui.resourceUri === v.uri).map((t) => `\`${t.name}\``);
    return `| \`${v.uri}\` | ${cell(v.description)} | ${tools.join(", ")} |`;
  });
  return `## Views (MCP Apps)

Clients that render MCP Apps (the \`${UI_EXTENSION}\` extension: Claude, ChatGPT, VS Code, Goose and others) show
what a tool made inside the conversation: a view is an HTML document the client shows in a sandboxed frame with
the tool's input and result. Approval still happens only in the browser, on the service's own page.

| View | Shows | Tools |
|---|---|---|
${rows.join("\n")}

- **Declaring support.** A client shows views when its capabilities declare the \`${UI_EXTENSION}\` extension
  (under \`extensions\`) with \`mimeTypes\` listing \`${VIEW_MIME_TYPE}\`: on 2026-07-28 in the client
  capabilities of each request's \`_meta\`; on the legacy revisions at \`initialize\`, whose answer then
  carries an \`Mcp-Session-Id\` (send it back on every request; the server keeps no session state: the id only
  says that the client shows views). A client that does not declare the extension gets exactly the same
  answers as before views existed: no \`_meta\` on tools, no view data in results.
- **Discovery.** \`tools/list\` gives each tool above \`_meta.ui.resourceUri\` (and the older
  \`_meta["ui/resourceUri"]\`). \`resources/list\` lists a view when the token may call one of its tools;
  \`resources/read\` answers the view's self-contained HTML with \`mimeType: "${VIEW_MIME_TYPE}"\` and
  \`_meta.ui.csp.resourceDomains\` naming the service's origin (no other network access; no remote script).
- **Data.** The result of a tool above carries \`_meta["${VIEW_META_KEY}"]\` for the view: short-lived signed
  media URLs on the service's origin (15 minutes), a carousel's slide size and caption, each destination
  network's cut of the caption and the rules the post breaks there (Network rules), what a pending approval
  will do. \`structuredContent\` and \`content\` are unchanged.
- **What a view does.** It refreshes itself only through read tools (\`get_carousel\`, \`get_post\`,
  \`list_deliveries\`, \`get_automation_run\`) at the polling pace (about 2 s, then every 5-10 s, while work
  runs), opens links through the client (\`ui/open-link\`), and for an \`approval_required\` result shows what
  will happen and one button, "Review and approve", that opens \`approval_url\` in the user's browser. A view
  never approves, never calls a write tool and never shows a token.
`;
}

/** "Prompts": the workflows offered to users. */
export function promptsChapter(): string {
  const rows = PROMPTS.map((p) => {
    const args = p.arguments
      .map((a) => `\`${a.name}\`${a.required ? "" : " (optional)"}${a.completes ? ", completed" : ""}`)
      .join("; ");
    return `| \`${p.name}\` | ${cell(p.title)} | ${cell(p.description)} | ${args} | ${p.scopes.map((s) => `\`${s}\``).join(" ")} |`;
  });
  return `## Prompts

Workflows written for agents that clients offer to users (often as slash commands): \`prompts/list\`, then
\`prompts/get\` with the arguments, gives the messages to start the conversation with, naming the user's own
records (a product's name and page, a delivery's network, state and reason) and the tools to call in order. A
prompt is listed only when the token has every scope it needs. \`completion/complete\` completes an argument
that is an id from the user's own records: type part of a product's name, or the start of an id; a
delivery is completed from the failed ones, newest first. An unknown prompt or argument, or a missing
required argument, is \`-32602\`.

| Prompt | Title | What it does | Arguments | Scopes |
|---|---|---|---|---|
${rows.join("\n")}
`;
}
