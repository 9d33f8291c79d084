/**
 * create_automation (draft only, service spec 4.3, 8): validates the definition (video type/template pair,
 * owned product, CTA video of 3 to 15 seconds for UGC, destinations), takes one account-wide automation slot
 * (`forbidden` when the plan's slots are used up) and saves a draft. It never enables or runs it.
 */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { createAutomation } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ToolHandler } from "../../tool-contract.ts";
import { transactionOf } from "../carousels/run-meta.ts";

type Output = ToolOutputs["create_automation"];

export const handler: ToolHandler<ToolInputs["create_automation"], Output> = {
  async execute(input, ctx) {
    const view = await createAutomation(
      transactionOf(ctx),
      ownerOf(ctx.auth),
      {
        kind: input.kind,
        name: input.name,
        configuration: input.configuration as Record<string, unknown>,
        cta_asset_id: input.cta_asset_id,
        daily_times: input.daily_times,
        time_zone: input.time_zone,
      },
      ctx.app.clock.now(),
    );
    return { data: view as unknown as Output };
  },
};
