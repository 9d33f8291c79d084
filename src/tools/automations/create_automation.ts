/**
 * create_automation (draft only, service spec 4.3, 8): validates the definition (video type/template pair,
 * owned product, CTA video of 3 to 15 seconds for UGC, destinations), takes one account-wide automation slot
 * (`forbidden` when the plan's slots are used up) and saves a draft. It never enables or runs it.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { createAutomation } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import { transactionOf } from "../carousels/run-meta.ts";

export const handler: ToolHandlers["create_automation"] = {
  async execute(input, ctx) {
    const view = await createAutomation(
      transactionOf(ctx),
      ownerOf(ctx.auth),
      {
        kind: input.kind,
        name: input.name,
        configuration: input.configuration,
        cta_asset_id: input.cta_asset_id,
        daily_times: input.daily_times,
        time_zone: input.time_zone,
      },
      ctx.app.clock.now(),
    );
    return { data: view };
  },
};
