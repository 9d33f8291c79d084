/**
 * enable_automation (review): `describe` checks ownership at call time, names the automation and shows what
 * every run will publish besides its generated content (the product's link, name and price, and the
 * destinations); the approval binds exactly those (src/domain/automations/publish-binding.ts). `execute`
 * (worker, after approval) validates the definition again, checks the product still has what the page
 * showed, enables the automation and records those facts as approved.
 *
 * On an automation already enabled whose review_status is `needs_review` (a product field changed since it
 * was approved), the request is how the owner approves the change: the page shows each changed value (old ->
 * new) and how many held posts, generated with exactly the new values, go out on approval; `execute` binds
 * the new values and sends those posts to the destinations.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import {
  automationView,
  ownedAutomation,
  setAutomationStatus,
} from "../../domain/automations/automations.ts";
import {
  factChanges,
  factsFingerprint,
  type PublishFacts,
} from "../../domain/automations/publish-binding.ts";
import { releaseHeldRuns } from "../../domain/automations/run-output.ts";
import { approvedPublishOf } from "../../domain/operations/store.ts";
import { ownerOf } from "../../domain/owner.ts";
import { describeAutomation, publishBinding, publishRows } from "./describe-automation.ts";

export const handler: ToolHandlers["enable_automation"] = {
  async describe(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const row = await ownedAutomation(ctx.db, owner, input.automation_id);
    const a = automationView(row);
    const base = await describeAutomation(
      ctx,
      input.automation_id,
      (name, kind) =>
        `Enable the ${kind} automation “${name}” so it runs at its daily times and publishes what is shown below.`,
    );
    const publish = await publishBinding(ctx, a.configuration);
    const approved = (row.approved_publish ?? null) as PublishFacts | null;
    const reviewing = a.status === "enabled" && approved !== null;
    const changes = reviewing ? factChanges(approved, publish.facts) : [];
    // Posts its runs held while it waited, generated with exactly what is approved now: they go out too.
    const held: Array<{ publish_facts: PublishFacts | null }> = await ctx
      .db("automation_runs")
      .where({ automation_id: a.automation_id, status: "succeeded" })
      .whereNotNull("held_reason")
      .select("publish_facts");
    const release = held.filter((r) => factsFingerprint(r.publish_facts) === publish.fingerprint).length;
    const releaseText =
      release > 0
        ? ` ${release} post${release === 1 ? "" : "s"} it generated meanwhile with these values ${release === 1 ? "is" : "are"} published to the destinations when you approve.`
        : "";
    return {
      ...base,
      summary:
        a.status === "enabled"
          ? `Approve what the ${a.kind} automation “${a.name}” publishes now${changes.length > 0 ? `: ${changes.join("; ")}` : ""}. Its runs keep their posts as drafts until you do.${releaseText}`
          : base.summary,
      settings: [...(base.settings ?? []), ...publishRows(publish.facts, reviewing ? approved : undefined)],
      publish,
    };
  },
  async execute(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const publish = await approvedPublishOf(ctx.app, ctx.operationId);
    const a = await setAutomationStatus(
      ctx.db,
      owner,
      input.automation_id,
      "enabled",
      ctx.app.clock.now(),
      publish?.facts,
    );
    if (publish) await releaseHeldRuns(ctx.app, owner, a.automation_id, publish.facts, ctx.operationId);
    return { data: { automation_id: a.automation_id, status: a.status } };
  },
};
