/**
 * `validation_failed` in plain words (service spec 7): real tools of the catalog, called through the MCP
 * endpoint with arguments that break their input schemas. Each message names the field and the rule: a
 * missing conditional field says which field is required when; an enum error lists the allowed values; a
 * `oneOf` failure reports the closest form; never the validator's own wording (`must match "then" schema`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { startTestApp } from "../helpers/app.ts";
import { rpc } from "../helpers/mcp-client.ts";
import { connect } from "../helpers/tokens.ts";

const app = await startTestApp({
  queue: false,
  env: { RATE_LIMIT_WRITES: "1000", RATE_LIMIT_READS: "1000", RATE_LIMIT_AI: "1000" },
});
const who = await app.user({ plan: "pro" });
const { token } = await connect(app, who, [...ALL_SCOPES]);
const KEY = "7cd05e8b-0d2f-4a4c-9e6b-8d0f2a4c6e79";
const UUID = "3f2b6c1a-7d4e-4a8b-9c0d-1e2f3a4b5c6d";
const TONES = ["friendly", "bold", "professional", "playful", "minimal"];

interface Detail {
  instancePath: string;
  keyword: string;
  message: string;
  allowed_values?: unknown[];
}

async function refused(name: string, args: Record<string, unknown>) {
  const r = await rpc(app.resource, "tools/call", { name, arguments: args }, { token });
  assert.equal(r.status, 200, name);
  const sc = r.body.result.structuredContent;
  assert.equal(r.body.result.isError, true, name);
  assert.equal(sc.error.code, "validation_failed", `${name}: ${sc.error.message}`);
  const text = `${sc.error.message}\n${JSON.stringify(sc.error.details)}`;
  for (const jargon of [
    'must match "then" schema',
    "must match a schema in anyOf",
    "must match exactly one schema in oneOf",
    "must be equal to constant",
    "schema is false",
  ])
    assert.ok(!text.includes(jargon), `${name}: ${jargon} in ${text}`);
  return { message: sc.error.message as string, details: sc.error.details as Detail[] };
}

const video = (configuration: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  kind: "video",
  name: "Daily video",
  configuration,
  idempotency_key: KEY,
  ...extra,
});

test("1. a missing conditional field says which field is required when", async () => {
  const e = await refused(
    "create_automation",
    video({ type: "ugc-video", template_id: "ugc-video", product_id: UUID }),
  );
  assert.equal(e.details[0]!.instancePath, "/cta_asset_id");
  assert.match(e.message, /^`cta_asset_id` is required when `configuration.type` is "ugc-video"/);
});

test("2. a conditional requirement inside an object names the nested field and the condition", async () => {
  const e = await refused("create_automation", {
    kind: "carousel",
    name: "Weekly carousel",
    configuration: { product_id: UUID, slide_count: 5 },
    idempotency_key: KEY,
  });
  assert.ok(
    e.details.some(
      (d) =>
        d.instancePath === "/configuration/design_id" &&
        d.message === '`configuration.design_id` is required when `kind` is "carousel"',
    ),
    JSON.stringify(e.details),
  );
});

test("3. a oneOf failure reports the closest form (the one whose `type` matches) and its rule", async () => {
  const e = await refused(
    "create_automation",
    video({ type: "grid-video", template_id: "ugc-video", product_id: UUID }),
  );
  assert.equal(e.details.length, 1, JSON.stringify(e.details));
  const d = e.details[0]!;
  assert.equal(d.instancePath, "/configuration/template_id");
  assert.deepEqual(d.allowed_values, ["2x2-grid"]);
  assert.match(d.message, /^`configuration` matches none of the 4 allowed forms; closest is form 2 of 4/);
  assert.match(d.message, /`configuration.template_id` must be "2x2-grid"$/);
});

test("4. an enum error lists the allowed values", async () => {
  const e = await refused("generate_captions", { brief: "Summer", tone: "angry", idempotency_key: KEY });
  assert.equal(e.message, `\`tone\` must be one of: ${TONES.map((t) => `"${t}"`).join(", ")}`);
  assert.deepEqual(e.details[0]!.allowed_values, TONES);
});

test("5. anyOf of required fields: one of them is required", async () => {
  const e = await refused("generate_captions", { idempotency_key: KEY });
  assert.equal(e.message, "one of `post_id`, `product_id`, `brief` is required");
  const hooks = await refused("generate_ugc_hooks", { idempotency_key: KEY });
  assert.equal(hooks.message, "one of `product_id`, `brief` is required");
});

test("6. a number out of range names the field and the bound", async () => {
  const e = await refused("list_content", { limit: 500 });
  assert.equal(e.message, "`limit` must be at most 50");
  assert.equal(e.details[0]!.instancePath, "/limit");
});

test("7. a malformed id names the field and the format", async () => {
  const e = await refused("get_post", { post_id: "not-a-uuid" });
  assert.equal(e.message, "`post_id` must be a valid uuid");
});

test("8. several missing fields: one issue per field, the message counts the rest", async () => {
  const e = await refused("schedule_post", { idempotency_key: KEY });
  assert.deepEqual(
    e.details.map((d) => d.instancePath),
    ["/post_id", "/scheduled_for", "/social_account_ids"],
  );
  assert.equal(e.message, "`post_id` is required (and 2 more problems, see details)");
});

test("9. duplicates and item formats inside a list name the item", async () => {
  const dup = await refused("schedule_post", {
    post_id: UUID,
    scheduled_for: "2030-01-01T10:00:00Z",
    social_account_ids: [UUID, UUID],
    idempotency_key: KEY,
  });
  assert.equal(dup.message, "`social_account_ids` must not hold the same item twice");
  const item = await refused("schedule_post", {
    post_id: UUID,
    scheduled_for: "2030-01-01T10:00:00Z",
    social_account_ids: [UUID, "abc"],
    idempotency_key: KEY,
  });
  assert.equal(item.message, "`social_account_ids[1]` must be a valid uuid");
});

test("10. a wrong type says the expected type in words", async () => {
  const e = await refused("generate_captions", { brief: "Summer", count: "three", idempotency_key: KEY });
  assert.equal(e.message, "`count` must be an integer");
});

test("11. a single-value enum lists it; a pattern names the field", async () => {
  const status = await refused("create_text_post", {
    caption: "Hello",
    status: "published",
    idempotency_key: KEY,
  });
  assert.equal(status.message, '`status` must be one of: "draft"');
  const currency = await refused("create_product", { name: "Mug", currency: "eur", idempotency_key: KEY });
  assert.equal(currency.message, "`currency` must match the pattern ^[A-Z]{3}$");
});

test("12. a pattern inside a list and too short a string", async () => {
  const times = await refused(
    "create_automation",
    video({ type: "grid-video", template_id: "2x2-grid", product_id: UUID }, { daily_times: ["25:00"] }),
  );
  assert.match(times.message, /^`daily_times\[0\]` must match the pattern/);
  const empty = await refused("create_text_post", { caption: "", status: "draft", idempotency_key: KEY });
  assert.equal(empty.message, "`caption` must be at least 1 character long");
});

test("13. a nullable field (anyOf with null) is explained as its type, 'or null' after a wrong type", async () => {
  const price = await refused("update_product", { product_id: UUID, price: "cheap", idempotency_key: KEY });
  assert.equal(price.message, "`price` must be a number or null");
  const currency = await refused("update_product", {
    product_id: UUID,
    currency: "euro",
    idempotency_key: KEY,
  });
  assert.deepEqual(
    currency.details.map((d) => d.message),
    ["`currency` must be at most 3 characters long", "`currency` must match the pattern ^[A-Z]{3}$"],
  );
  assert.doesNotMatch(currency.message, /allowed forms/);
});
