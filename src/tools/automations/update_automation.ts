/**
 * update_automation (review): `describe` validates the merged definition at call time (the kind never
 * changes; ugc-video still needs its CTA video); `execute` (worker, after approval) validates and saves again.
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
import { automationDestinations, automationSettings } from "./describe-automation.ts";

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
    return {
      summary: `Change the ${p.row.kind} automation “${p.row.name}”: ${fields.join(", ")}.`,
      resources: [{ kind: "automation", id: p.row.id, label: p.row.name }],
      destinations: await automationDestinations(ctx, next.configuration),
      settings: automationSettings(next, current),
      when:
        next.daily_times.length > 0
          ? `daily at ${next.daily_times.join(", ")} (${next.time_zone})`
          : undefined,
      versions: [{ table: "automations", id: p.row.id, updated_at: current.updated_at }],
    };
  },
  async execute(input, ctx) {
    const view = await updateAutomation(
      ctx.db,
      ownerOf(ctx.auth),
      input.automation_id,
      changes(input),
      ctx.app.clock.now(),
    );
    return { data: view };
  },
};
