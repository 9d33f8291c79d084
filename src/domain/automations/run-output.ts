/**
 * Where an automation run's post goes once generated (./run.ts): to the automation's destinations
 * (`deliverOutput`, each delivery bound to the approved content), or held as a draft when what it publishes
 * is not what the owner approved (`holdOutput`), until the owner approves the change (`releaseHeldRuns`;
 * ./publish-binding.ts).
 */
import type { AppContext } from "../../context.ts";
import type { Network } from "../../providers/social/types.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { approvedContent, deliveryBinding } from "../social/content.ts";
import { advanceDeliveries } from "../social/engine.ts";
import { factsFingerprint, type PublishFacts } from "./publish-binding.ts";

/**
 * Sends a generated post to the automation's destinations: TikTok deliveries wait in `needs_review` for the
 * creator options and consent of the service's own review UI (service spec 1.11); the others are published
 * through the social provider (the run itself was approved in the browser).
 */
export async function deliverOutput(
  app: AppContext,
  owner: Owner,
  postId: string,
  accountIds: string[],
  operationId: string | undefined,
) {
  const accounts: Array<{ id: string; network: string }> = await app
    .db("social_accounts")
    .where(ownedBy(owner))
    .whereIn("id", accountIds)
    .select("id", "network");
  if (accounts.length === 0) return;
  const now = app.clock.now();
  // Each delivery is bound to the post and the Pin's link as they are now, which the caller checked are what
  // the owner approved: the engine refuses a later change (src/domain/social/content.ts).
  const content = await approvedContent(
    app.db,
    postId,
    accounts.map((a) => ({ social_account_id: a.id, network: a.network as Network })),
  );
  const rows: Array<{ id: string; status: string }> = await app
    .db("deliveries")
    .insert(
      accounts.map((a) => ({
        ...ownedBy(owner),
        post_id: postId,
        social_account_id: a.id,
        status: a.network === "tiktok" ? "needs_review" : "pending",
        operation_id: operationId ?? null,
        ...deliveryBinding(content, a.id),
        created_at: now,
        updated_at: now,
      })),
    )
    .returning(["id", "status"]);
  const pending = rows.filter((r) => r.status === "pending").map((r) => r.id);
  if (pending.length > 0) await advanceDeliveries(app, pending);
  else
    await app
      .db("posts")
      .where({ id: postId })
      .update({ status: "needs_review", updated_at: app.clock.now() });
}

/**
 * Holds the post of run `runId` as a draft instead of publishing it: `changed` says what differs from what
 * the owner approved (./publish-binding.ts). The post goes out when the owner approves the change
 * (`releaseHeldRuns`).
 */
export async function holdOutput(app: AppContext, runId: string, changed: string[]): Promise<void> {
  const reason = `not published: ${changed.join("; ")}; the post waits as a draft until the owner approves the change (enable_automation)`;
  await app
    .db("automation_runs")
    .where({ id: runId })
    .update({ held_reason: reason.slice(0, 1000), updated_at: app.clock.now() });
  app.log.info({ run_id: runId }, "automation run output held for the owner's review");
}

/**
 * Sends the held posts of automation `automationId` whose runs generated with exactly `facts` (the publish
 * facts the owner just approved) to `facts.social_account_ids`, each once (a conditional UPDATE clears the
 * hold). Posts deleted or already published elsewhere stay as they are. @returns the runs released.
 */
export async function releaseHeldRuns(
  app: AppContext,
  owner: Owner,
  automationId: string,
  facts: PublishFacts | null,
  operationId: string | undefined,
): Promise<string[]> {
  if (!facts || facts.social_account_ids.length === 0) return [];
  const fingerprint = factsFingerprint(facts);
  const runs: Array<{ id: string; post_id: string; publish_facts: PublishFacts | null }> = await app
    .db("automation_runs as r")
    .join("posts as p", "p.id", "r.post_id")
    .where(ownedBy(owner, "r"))
    .where({ "r.automation_id": automationId, "r.status": "succeeded" })
    .whereNotNull("r.held_reason")
    .whereNull("p.deleted_at")
    .whereIn("p.status", ["draft", "approved"])
    .orderBy("r.created_at")
    .select("r.id", "r.post_id", "r.publish_facts");
  const released: string[] = [];
  for (const run of runs) {
    if (factsFingerprint(run.publish_facts) !== fingerprint) continue;
    const n = await app
      .db("automation_runs")
      .where({ id: run.id })
      .whereNotNull("held_reason")
      .update({ held_reason: null, updated_at: app.clock.now() });
    if (n === 0) continue;
    await deliverOutput(app, owner, run.post_id, facts.social_account_ids, operationId);
    released.push(run.id);
  }
  return released;
}
