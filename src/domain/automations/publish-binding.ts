/**
 * What an enabled automation publishes is what the owner approved (docs/social.md "Approved content:
 * automations"; service spec 3.1, 4.4). A run writes its caption's call to action and the Pinterest Pin's
 * link from the automation's product, and publishes to its destination accounts: these "publish facts"
 * (product id, name, price, link; destination accounts) are shown on the approval page of enable_automation
 * (and of update_automation and run_automation) and bound by the approval (`automations.approved_publish`).
 *
 * A later change of one of them (update_product needs no approval: an agent, or a page it read, could swap
 * the link) puts the automation in `needs_review`: its runs still generate, but their posts stay drafts,
 * held (`automation_runs.held_reason`), until the owner approves the change with a new enable_automation
 * request, whose approval binds the new facts and sends the held posts generated with exactly those facts
 * to the approved destinations.
 */
import { canonicalHash } from "../../crypto/canonical-json.ts";
import type { Knex } from "../../db/knex.ts";
import { fromMinor } from "../products/money.ts";
import type { AutomationPublishFacts } from "../../tool-contract.ts";
import { type Owner, ownedBy } from "../owner.ts";

/**
 * What a run of an automation publishes besides the generated content (see the module comment): the price in
 * minor units (cents) as stored, the destination accounts in the configured order.
 */
export type PublishFacts = AutomationPublishFacts;

/** An automation's review state (get_automation `review_status` / `review_reason`). */
export interface ReviewState {
  /**
   * `not_enabled`: a draft or disabled automation (nothing runs at its daily times); `approved`: what its runs
   * publish is what the owner approved; `needs_review`: a published field changed since, runs keep their
   * posts as drafts until the owner approves the change.
   */
  review_status: "not_enabled" | "approved" | "needs_review";
  /** What changed and what to do, in plain words; null unless `needs_review`. */
  review_reason: string | null;
}

/**
 * The publish facts of an automation `configuration` now: its product's name, price and link (null when the
 * product is gone) and its destination accounts.
 */
export async function publishFacts(
  db: Knex,
  configuration: Record<string, unknown>,
): Promise<PublishFacts | null> {
  const productId = configuration.product_id;
  if (typeof productId !== "string") return null;
  const p = await db("products")
    .where({ id: productId })
    .whereNull("deleted_at")
    .first("id", "name", "product_url", "price_minor", "currency");
  if (!p) return null;
  const ids = Array.isArray(configuration.social_account_ids)
    ? configuration.social_account_ids.map(String)
    : [];
  return {
    product_id: p.id,
    name: p.name,
    product_url: p.product_url ?? null,
    price_minor: p.price_minor === null || p.price_minor === undefined ? null : Number(p.price_minor),
    currency: p.currency ?? null,
    social_account_ids: ids,
  };
}

/** The fingerprint of `facts` (SHA-256 of canonical JSON); null facts have none. */
export function factsFingerprint(facts: PublishFacts | null | undefined): string | null {
  return facts ? canonicalHash(facts) : null;
}

/** A price in plain words: "19.99 USD", or "none". */
export function priceText(f: Pick<PublishFacts, "price_minor" | "currency">): string {
  if (f.price_minor === null) return "none";
  return f.currency ? `${fromMinor(f.price_minor, f.currency)} ${f.currency}` : String(f.price_minor);
}

const show = (v: string | null) => (v === null || v === "" ? "none" : v);

/** What differs between the approved facts and the current ones, in plain words; [] when nothing does. */
export function factChanges(approved: PublishFacts, current: PublishFacts | null): string[] {
  if (!current) return ["the product was deleted"];
  const out: string[] = [];
  if (approved.product_id !== current.product_id) out.push("the product changed");
  if (approved.product_url !== current.product_url)
    out.push(`the product link changed from ${show(approved.product_url)} to ${show(current.product_url)}`);
  if (approved.name !== current.name)
    out.push(`the product name changed from “${approved.name}” to “${current.name}”`);
  if (approved.price_minor !== current.price_minor || approved.currency !== current.currency)
    out.push(`the price changed from ${priceText(approved)} to ${priceText(current)}`);
  if (canonicalHash(approved.social_account_ids) !== canonicalHash(current.social_account_ids))
    out.push("the destination accounts changed");
  return out;
}

/** The sentence telling the owner (through the agent) how to approve a change. */
export const HOW_TO_APPROVE =
  "its runs keep their posts as drafts until the owner approves the change: call enable_automation again, and the owner approves it in the browser";

/**
 * The review state of automations row `row` (its `status`, `configuration` and `approved_publish`): compares
 * the approved facts with the current ones.
 */
export async function reviewState(
  db: Knex,
  row: { id: string; status: string; configuration: unknown; approved_publish?: unknown },
): Promise<ReviewState> {
  if (row.status !== "enabled") return { review_status: "not_enabled", review_reason: null };
  const approved = (row.approved_publish ?? null) as PublishFacts | null;
  const current = await publishFacts(db, (row.configuration ?? {}) as Record<string, unknown>);
  if (!approved)
    return {
      review_status: "needs_review",
      review_reason: `the automation was enabled before the owner approved what its runs publish (product link, name, price, destinations); ${HOW_TO_APPROVE}.`,
    };
  const changes = factChanges(approved, current);
  if (changes.length === 0) return { review_status: "approved", review_reason: null };
  const held = await db("automation_runs")
    .where({ automation_id: row.id })
    .whereNotNull("held_reason")
    .count({ n: "*" })
    .first();
  const n = Number(held?.n ?? 0);
  return {
    review_status: "needs_review",
    review_reason: `since the owner approved this automation, ${changes.join("; ")}. ${HOW_TO_APPROVE[0]!.toUpperCase()}${HOW_TO_APPROVE.slice(1)}${n > 0 ? ` (${n} generated post${n === 1 ? " is" : "s are"} held now)` : ""}.`,
  };
}

/** Binds `facts` to automation `automationId` as approved at `now` (the approved effect of a request). */
export async function bindPublishFacts(
  db: Knex,
  automationId: string,
  facts: PublishFacts | null,
  now: Date,
): Promise<void> {
  await db("automations")
    .where({ id: automationId })
    .update({ approved_publish: facts ? JSON.stringify(facts) : null, approved_publish_at: now });
}

/**
 * The owner's enabled automations whose review state is `needs_review`, by name, with what changed in plain
 * words (for the posts page). Owner-scoped like every read (../owner.ts).
 */
export async function automationsNeedingReview(
  db: Knex,
  owner: Owner,
): Promise<Array<{ automation_id: string; name: string; changes: string[] }>> {
  const rows = await db("automations")
    .where(ownedBy(owner))
    .where({ status: "enabled" })
    .whereNull("deleted_at")
    .orderBy([{ column: "name" }, { column: "id" }])
    .limit(50)
    .select("id", "name", "status", "configuration", "approved_publish");
  const out: Array<{ automation_id: string; name: string; changes: string[] }> = [];
  for (const r of rows) {
    const approved = (r.approved_publish ?? null) as PublishFacts | null;
    const current = await publishFacts(db, (r.configuration ?? {}) as Record<string, unknown>);
    const changes = approved
      ? factChanges(approved, current)
      : ["it was enabled before you approved what its runs publish"];
    if (changes.length > 0) out.push({ automation_id: r.id, name: r.name, changes });
  }
  return out;
}
