/**
 * Generic plans (src/db/knex.ts, docs/operations.md "Prepared statements and their plans"): every pooled
 * connection runs with `plan_cache_mode = force_generic_plan`; the main pool sets `synchronous_commit = on`
 * itself (the test databases default to off: test/helpers/db.ts) and the counters' pool sets it off. The token lookup of every /mcp request (src/oauth/bearer.ts
 * `tokenRecordsSql`) and the admission statement built on it plan, generically, to index lookups per
 * token: no sequential scan of the grants, whose number grows with every connection ever made.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { tokenRecordsSql } from "../../src/oauth/bearer.ts";
import { startTestApp } from "../helpers/app.ts";

const app = await startTestApp({ queue: false });

const setting = async (db: typeof app.ctx.db, name: string) =>
  ((await db.raw(`select current_setting('${name}') as v`)).rows[0] as { v: string }).v;

/** The node types of the generic plan of `sql` (parameters `types`), prepared on one pooled connection. */
async function planNodes(sql: string, types: string, args: string): Promise<string[]> {
  return app.ctx.db.transaction(async (trx) => {
    await trx.raw(`prepare plan_probe(${types}) as ${sql}`);
    const { rows } = await trx.raw(`explain (format json) execute plan_probe(${args})`);
    await trx.raw("deallocate plan_probe");
    const nodes: string[] = [];
    const walk = (n: { "Node Type": string; "Relation Name"?: string; Plans?: unknown[] }) => {
      nodes.push(n["Relation Name"] ? `${n["Node Type"]} on ${n["Relation Name"]}` : n["Node Type"]);
      for (const child of n.Plans ?? []) walk(child as typeof n);
    };
    walk((rows[0]["QUERY PLAN"] as Array<{ Plan: Parameters<typeof walk>[0] }>)[0]!.Plan);
    return nodes;
  });
}

test("both pools plan prepared statements generically; the counters' pool commits asynchronously", async () => {
  assert.equal(await setting(app.ctx.db, "plan_cache_mode"), "force_generic_plan");
  assert.equal(await setting(app.ctx.asyncCommitDb, "plan_cache_mode"), "force_generic_plan");
  assert.equal(await setting(app.ctx.db, "synchronous_commit"), "on");
  assert.equal(await setting(app.ctx.asyncCommitDb, "synchronous_commit"), "off");
});

test("the token lookup's generic plan looks each token up by index, never scanning the grants", async () => {
  const nodes = await planNodes(tokenRecordsSql("$1"), "uuid[]", "'{00000000-0000-4000-8000-000000000001}'");
  assert.ok(nodes.includes("Index Scan on oauth_access_tokens"), nodes.join(", "));
  assert.ok(nodes.includes("Index Scan on oauth_grants"), nodes.join(", "));
  assert.ok(!nodes.some((n) => n.startsWith("Seq Scan")), nodes.join(", "));
});
