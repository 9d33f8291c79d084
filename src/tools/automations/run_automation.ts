/**
 * run_automation (review, service spec 3.1 rule 2, 8): `describe` checks ownership and the definition at
 * call time and states the price; `execute` (worker, after approval) creates a native manual run, charges
 * the native price before any work and generates the output. Poll get_automation_run with kind and run_id.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { validateSettings } from "../../domain/automations/config.ts";
import { automationView, ownedAutomation } from "../../domain/automations/automations.ts";
import { runAutomation } from "../../domain/automations/run.ts";
import { ownerOf } from "../../domain/owner.ts";
import { carouselPrice, carouselWithCtaPrice, videoPrice } from "../../domain/account/prices.ts";
import {
  automationDestinations,
  automationSettings,
  publishBinding,
  publishRows,
} from "./describe-automation.ts";
import { approvedPublishOf } from "../../domain/operations/store.ts";

export const handler: ToolHandlers["run_automation"] = {
  async describe(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const a = automationView(await ownedAutomation(ctx.db, owner, input.automation_id));
    await validateSettings(ctx.db, owner, a);
    const c = a.configuration;
    const credits =
      "template_id" in c
        ? videoPrice(c.template_id)
        : c.use_cta_artwork === true
          ? carouselWithCtaPrice(c.slide_count)
          : carouselPrice(c.slide_count);
    // What this run publishes besides its content: bound by this approval (publish-binding.ts).
    const publish = await publishBinding(ctx, a.configuration);
    return {
      summary: `Run the ${a.kind} automation “${a.name}” once now; it costs ${credits} credits.`,
      resources: [{ kind: "automation", id: a.automation_id, label: a.name }],
      destinations: await automationDestinations(ctx, a.configuration),
      settings: [...automationSettings(a), ...publishRows(publish.facts)],
      publish,
      when: `once now; it also runs daily at ${a.daily_times.join(", ") || "no time"} (${a.time_zone}) when enabled`,
      versions: [{ table: "automations", id: a.automation_id, updated_at: a.updated_at }],
      credits,
    };
  },
  async execute(input, ctx) {
    const publish = await approvedPublishOf(ctx.app, ctx.operationId);
    const out = await runAutomation(ctx.app, ownerOf(ctx.auth), {
      automationId: input.automation_id,
      operationId: ctx.operationId,
      signal: ctx.signal,
      // The run publishes what this request's page showed; a request without it, what enabling approved.
      ...(publish ? { approvedFacts: publish.facts } : {}),
    });
    return {
      data: {
        automation_id: out.automation_id,
        kind: out.kind,
        run_id: out.run_id,
        status: out.status,
        credits_charged: out.credits_charged,
      },
      credits_charged: out.credits_charged,
    };
  },
};
