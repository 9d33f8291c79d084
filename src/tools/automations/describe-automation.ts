/**
 * Approval-page descriptions of the automation review tools (service spec 4.4): the automation by name, the
 * configuration being approved in plain words (for updates each changed value as old -> new), the
 * destination accounts, what every run publishes besides its generated content (the product's link, name and
 * price, bound by the approval: src/domain/automations/publish-binding.ts), the daily times with their time
 * zone, and the automation's version (a change before the decision makes the request stale).
 */
import { automationView, ownedAutomation } from "../../domain/automations/automations.ts";
import { ownerOf } from "../../domain/owner.ts";
import type { ApprovalDescription, ToolContext } from "../../tool-contract.ts";
import {
  factsFingerprint,
  type PublishFacts,
  priceText,
  publishFacts,
} from "../../domain/automations/publish-binding.ts";

type Settings = NonNullable<ApprovalDescription["settings"]>;

/** The fields an approval page shows for an automation (configuration keys, CTA video, times, zone). */
export interface AutomationFacts {
  name: string;
  configuration: Record<string, unknown>;
  cta_asset_id: string | null;
  daily_times: string[];
  time_zone: string;
}

const show = (v: unknown): string =>
  v === null || v === undefined
    ? "none"
    : Array.isArray(v)
      ? v.map(show).join(", ") || "none"
      : typeof v === "object"
        ? JSON.stringify(v)
        : String(v);

/** Plain-word rows of `next`; with `prev`, each row carries the value it replaces. */
export function automationSettings(next: AutomationFacts, prev?: AutomationFacts): Settings {
  const row = (label: string, value: unknown, old?: unknown) => ({
    label,
    value: show(value),
    ...(prev ? { old: show(old) } : {}),
  });
  const keys = [...new Set([...Object.keys(next.configuration), ...Object.keys(prev?.configuration ?? {})])]
    .filter((k) => k !== "social_account_ids")
    .sort();
  return [
    row("Name", next.name, prev?.name),
    ...keys.map((k) => row(k.replaceAll("_", " "), next.configuration[k], prev?.configuration[k])),
    row("CTA video", next.cta_asset_id, prev?.cta_asset_id),
    row("Daily times", next.daily_times, prev?.daily_times),
    row("Time zone", next.time_zone, prev?.time_zone),
  ];
}

/**
 * The approval page rows of what the automation's runs publish besides the generated content (the product's
 * link, name and price; the destinations are listed as destinations); with `prev` (the facts approved before),
 * each row carries the value it replaces.
 */
export function publishRows(next: PublishFacts | null, prev?: PublishFacts | null): Settings {
  const row = (label: string, value: string, old?: string) => ({
    label,
    value,
    ...(prev !== undefined ? { old: old ?? "none" } : {}),
  });
  const link = (f: PublishFacts | null | undefined) => f?.product_url ?? "none";
  const name = (f: PublishFacts | null | undefined) => f?.name ?? "none (the product is gone)";
  const price = (f: PublishFacts | null | undefined) => (f ? priceText(f) : "none");
  return [
    row(
      "Link in every post (caption call to action, Pinterest link)",
      link(next),
      prev ? link(prev) : undefined,
    ),
    row("Product name in every post", name(next), prev ? name(prev) : undefined),
    row("Product price in every post", price(next), prev ? price(prev) : undefined),
  ];
}

/** What an approval of `configuration`'s publish facts binds now (ApprovalDescription `publish`). */
export async function publishBinding(
  ctx: ToolContext,
  configuration: Record<string, unknown>,
): Promise<NonNullable<ApprovalDescription["publish"]>> {
  const facts = await publishFacts(ctx.db, configuration);
  return { facts, fingerprint: factsFingerprint(facts) };
}

/** The destination accounts named in `configuration.social_account_ids` that the owner holds. */
export async function automationDestinations(
  ctx: ToolContext,
  configuration: Record<string, unknown>,
): Promise<ApprovalDescription["destinations"]> {
  const ids = Array.isArray(configuration.social_account_ids)
    ? configuration.social_account_ids.map(String)
    : [];
  if (ids.length === 0) return [];
  const owner = ownerOf(ctx.auth);
  type Row = { id: string; display_name: string; network: string; handle: string | null };
  const rows: Row[] = await ctx
    .db("social_accounts")
    .where({ workspace_id: owner.workspaceId, user_id: owner.userId })
    .whereIn("id", ids)
    .select("id", "display_name", "network", "handle");
  return ids
    .map((id) => rows.find((r) => r.id === id))
    .filter((r): r is Row => Boolean(r))
    .map((r) => ({ name: r.display_name, network: r.network, handle: r.handle }));
}

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
    destinations: await automationDestinations(ctx, a.configuration),
    settings: automationSettings(a),
    when: a.daily_times.length > 0 ? `daily at ${a.daily_times.join(", ")} (${a.time_zone})` : undefined,
    versions: [{ table: "automations", id: a.automation_id, updated_at: a.updated_at }],
  };
}
