/** Approval-page descriptions of the automation review tools (service spec 4.4): the automation by name. */
import { automationView, ownedAutomation } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ApprovalDescription, ToolContext } from "../../tool-contract.ts";

/** Describes an action (`sentence(name, kind)`) on the caller's automation. @throws ToolError not_found. */
export async function describeAutomation(
  ctx: ToolContext,
  automationId: string,
  sentence: (name: string, kind: string) => string,
): Promise<ApprovalDescription> {
  const a = automationView(await ownedAutomation(ctx.db, ownerOf(ctx.auth), automationId));
  return {
    summary: sentence(a.name, a.kind),
    resources: [{ kind: "automation", id: a.automation_id, label: a.name }],
    destinations: [],
  };
}
