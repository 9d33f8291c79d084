/**
 * update_automation (review): `describe` validates the merged definition at call time (the kind never
 * changes; ugc-video still needs its CTA video) and shows what its runs will publish (product link, name,
 * price; destinations); `execute` (worker, after approval) validates and saves again, and on an enabled
 * automation binds those publish facts as approved (src/domain/automations/publish-binding.ts) and sends the
 * posts held with exactly them.
 */
import type { ToolHandlers, ToolInputs } from "../../../generated/tool-types.ts";
import { pick } from "../../db/rows.ts";
import {
  type AutomationChanges,
  automationView,
  previewUpdate,
  updateAutomation,
} from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import {
  automationDestinations,
  automationSettings,
  publishBinding,
  publishRows,
} from "./describe-automation.ts";
import type { PublishFacts } from "../../domain/automations/publish-binding.ts";
import { releaseHeldRuns } from "../../domain/automations/run-output.ts";
import { approvedPublishOf } from "../../domain/operations/store.ts";

type Input = ToolInputs["update_automation"];

function changes(input: Input): AutomationChanges {
  return pick(input, ["name", "configuration", "cta_asset_id", "daily_times", "time_zone"]);
}

export const handler: ToolHandlers["update_automation"] = {
  async describe(input, ctx) {
    const p = await previewUpdate(ctx.db, ownerOf(ctx.auth), input.automation_id, changes(input));
    const fields = Object.entries(changes(input))
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k.replaceAll("_", " "));
    const current = automationView(p.row);
    const next = {
      name: p.name,
      configuration: p.settings.configuration,
      cta_asset_id: p.settings.cta_asset_id ?? null,
      daily_times: p.settings.daily_times,
      time_zone: p.settings.time_zone,
    };
    // What its runs will publish with the new definition (the product's link, name, price): bound by the
    // approval when the automation is enabled (src/domain/automations/publish-binding.ts).
    const publish = await publishBinding(ctx, next.configuration);
    const approved = (p.row.approved_publish ?? null) as PublishFacts | null;
    return {
      summary: `Change the ${p.row.kind} automation “${p.row.name}”: ${fields.join(", ")}.`,
      resources: [{ kind: "automation", id: p.row.id, label: p.row.name }],
      destinations: await automationDestinations(ctx, next.configuration),
      settings: [
        ...automationSettings(next, current),
        ...publishRows(publish.facts, p.row.status === "enabled" && approved ? approved : undefined),
      ],
      publish,
      when:
        next.daily_times.length > 0
          ? `daily at ${next.daily_times.join(", ")} (${next.time_zone})`
          : undefined,
      versions: [{ table: "automations", id: p.row.id, updated_at: current.updated_at }],
    };
  },
  async execute(input, ctx) {
    const publish = await approvedPublishOf(ctx.app, ctx.operationId);
    const owner = ownerOf(ctx.auth);
    const view = await updateAutomation(
      ctx.db,
      owner,
      input.automation_id,
      changes(input),
      ctx.app.clock.now(),
      publish?.facts,
    );
    if (publish && view.status === "enabled")
      await releaseHeldRuns(ctx.app, owner, view.automation_id, publish.facts, ctx.operationId);
    return { data: view };
  },
};
