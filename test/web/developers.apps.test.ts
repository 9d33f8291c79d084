/**
 * The developer reference page (GET /developers/mcp) and the guide describe what the server offers besides
 * tools, from the same sources as the endpoint: the rules for agents are the server's `instructions` word
 * for word; the views section names each view with its tools (tools.yaml `_meta.ui.resourceUri`); the
 * prompts section names each prompt with its arguments and scopes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as cheerio from "cheerio";
import { TOOLS } from "../../generated/registry.ts";
import { AGENT_RULES, INSTRUCTIONS } from "../../src/mcp/instructions.ts";
import { PROMPTS } from "../../src/mcp/prompts/catalog.ts";
import { VIEWS } from "../../src/mcp/views/catalog.ts";
import { startTestApp } from "../helpers/app.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";

const app = await startTestApp({ queue: false });
const $ = cheerio.load(await (await fetch(`${app.url}/developers/mcp`)).text());

/** The text of the guide section under the h2 with `id`, up to the next h2. */
function section(id: string): string {
  const h = $(`#guide h2#${id}`);
  assert.equal(h.length, 1, `the page has the section #${id}`);
  return h.nextUntil("h2").text().replace(/\s+/g, " ");
}

test("the rules for agents are the server's instructions, word for word, on every revision", async () => {
  const text = section("rules-for-agents");
  // Markdown renders `code` spans without their backticks.
  for (const r of AGENT_RULES)
    assert.ok(text.includes(`${r.title} ${r.text}`.replaceAll("`", "").replace(/\s+/g, " ")), r.title);
  const me = await app.user();
  const { token } = await connect(app, me, ["read:profile"]);
  const discover = await rpc(app.resource, "server/discover", {}, { token });
  assert.equal(discover.body.result.instructions, INSTRUCTIONS);
  for (const revision of ["2025-11-25", "2025-06-18"] as const) {
    const init = await rpc(
      app.resource,
      "initialize",
      {
        protocolVersion: revision,
        capabilities: {},
        clientInfo: { name: "social-mcp-tests", version: "1.0.0" },
      },
      { token, revision },
    );
    assert.equal(init.body.result.protocolVersion, revision);
    assert.equal(init.body.result.instructions, INSTRUCTIONS, `initialize on ${revision}`);
  }
});

test("the views section names each view, what it shows and its tools", () => {
  const text = section("views-mcp-apps");
  for (const v of VIEWS) {
    assert.ok(text.includes(v.uri), v.uri);
    for (const t of TOOLS.filter((x) => x._meta?.ui.resourceUri === v.uri))
      assert.ok(text.includes(t.name), t.name);
  }
  assert.match(text, /Review and approve/);
  assert.match(text, /Mcp-Session-Id/);
});

test("the prompts section names each prompt, its arguments and its scopes", () => {
  const text = section("prompts");
  for (const p of PROMPTS) {
    assert.ok(text.includes(p.name) && text.includes(p.title), p.name);
    for (const a of p.arguments) assert.ok(text.includes(a.name), `${p.name} ${a.name}`);
    for (const s of p.scopes) assert.ok(text.includes(s), `${p.name} ${s}`);
  }
});
