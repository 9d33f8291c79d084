/**
 * Service spec 7 rule 7 and 2.8: bearer tokens, captions, prompts and bodies never reach a log line, and the
 * audit row holds argument names only. Every log line of a real app is captured while an agent works.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { createLogger } from "../../src/log.ts";
import { startTestApp } from "../helpers/app.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(String(chunk));
    done();
  },
});
const app = await startTestApp({ logger: createLogger("debug", sink) });
const who = await app.user();
const { token } = await connect(app, who, ["create:content", "read:content", "create:captions"]);
const CAPTION = "caption-secret-4f1d9a never in logs";
const BRIEF = "prompt-secret-88c2 never in logs";

test("tokens, captions and prompts never reach the logs or the audit rows", async () => {
  const created = await rpc(
    `${app.resource}`,
    "tools/call",
    {
      name: "create_text_post",
      arguments: {
        caption: CAPTION,
        status: "draft",
        idempotency_key: "9d3c2b1a-1111-4c2d-8e3f-0a1b2c3d4e5f",
      },
    },
    { token },
  );
  assert.equal(created.body.result.structuredContent.status, "succeeded");
  await rpc(
    app.resource,
    "tools/call",
    {
      name: "generate_captions",
      arguments: { brief: BRIEF, idempotency_key: "9d3c2b1a-2222-4c2d-8e3f-0a1b2c3d4e5f" },
    },
    { token },
  );
  // A token in the query string is refused, and must not be logged either.
  const refused = await fetch(`${app.resource}?access_token=${token}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(refused.status, 401);
  // A handler failure is logged, without the arguments.
  await rpc(
    app.resource,
    "tools/call",
    { name: "get_post", arguments: { post_id: "not-a-uuid" } },
    { token },
  );

  const all = lines.join("");
  assert.ok(lines.length > 3, "the app logged something");
  for (const secret of [token, token.split(".")[2]!, CAPTION, BRIEF]) assert.ok(!all.includes(secret));
  const audit = await app.ctx.db("audit_records").where({ user_id: who.user_id });
  assert.ok(audit.length >= 3);
  const auditText = JSON.stringify(audit);
  for (const secret of [token, CAPTION, BRIEF]) assert.ok(!auditText.includes(secret));
  const row = audit.find((r) => r.tool === "create_text_post");
  assert.deepEqual([...row.argument_names].sort(), ["caption", "idempotency_key", "status"]);
});
