/**
 * Automations (service spec 1.7, 2.7, 3.1, 8): drafts created through a tool (counting against the plan's
 * automation slots, shared account-wide); update, enable, disable and delete run after browser approval.
 * Reads are owner-scoped; another user's or workspace's automation is `not_found`.
 */
import { isUuid } from "../../ids.ts";
import type { Knex } from "../../db/knex.ts";
import { notFound, ToolError } from "../../errors.ts";
import {
  type AutomationConfiguration,
  type AutomationKind,
  type AutomationSettings,
  validateSettings,
} from "./config.ts";
import { keysetPage, pageSize } from "../cursor.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { assertAutomationSlot } from "../account/quotas.ts";
import {
  bindPublishFacts,
  factChanges,
  factsFingerprint,
  type PublishFacts,
  publishFacts,
  type ReviewState,
  reviewState,
} from "./publish-binding.ts";

export interface AutomationView {
  automation_id: string;
  kind: AutomationKind;
  name: string;
  status: "draft" | "enabled" | "disabled";
  configuration: AutomationConfiguration;
  cta_asset_id: string | null;
  daily_times: string[];
  time_zone: string;
  created_at: string;
  updated_at: string;
}

/** An automation as the tools return it: its view and its review state (./publish-binding.ts). */
export type AutomationOutput = AutomationView & ReviewState;

/** The tools' projection of automations row `r`: its view and whether what it publishes is approved. */
export async function automationOutput(db: Knex, r: any): Promise<AutomationOutput> {
  return { ...automationView(r), ...(await reviewState(db, r)) };
}

/** Maps an automations row to its view. */
export function automationView(r: any): AutomationView {
  return {
    automation_id: r.id,
    kind: r.kind,
    name: r.name,
    status: r.status,
    configuration: r.configuration ?? {},
    cta_asset_id: r.cta_asset_id ?? null,
    daily_times: Array.isArray(r.daily_times) ? r.daily_times : [],
    time_zone: r.time_zone,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** The owner's live automation row. @throws ToolError not_found. */
export async function ownedAutomation(db: Knex, owner: Owner, automationId: string) {
  if (!isUuid(automationId)) throw notFound("automation");
  const row = await db("automations")
    .where(ownedBy(owner))
    .where({ id: automationId })
    .whereNull("deleted_at")
    .first();
  if (!row) throw notFound("automation");
  return row;
}

export interface NewAutomation {
  kind: AutomationKind;
  name: string;
  configuration: Record<string, unknown>;
  cta_asset_id?: string | null | undefined;
  daily_times?: string[] | undefined;
  time_zone?: string | undefined;
}

/**
 * Saves a draft automation (never enabled by a tool call). Takes one account-wide automation slot.
 * @throws ToolError forbidden (no free slot), validation_failed, not_found (foreign product or CTA video).
 */
export async function createAutomation(
  trx: Knex.Transaction,
  owner: Owner,
  input: NewAutomation,
  now: Date,
): Promise<AutomationOutput> {
  const settings = await validateSettings(trx, owner, {
    kind: input.kind,
    configuration: input.configuration,
    cta_asset_id: input.cta_asset_id ?? null,
    daily_times: input.daily_times ?? [],
    time_zone: input.time_zone ?? "UTC",
  });
  await assertAutomationSlot(trx, owner.userId);
  const [row] = await trx("automations")
    .insert({
      ...ownedBy(owner),
      kind: settings.kind,
      name: input.name.trim(),
      status: "draft",
      template_id: (settings.configuration.template_id as string | undefined) ?? null,
      configuration: JSON.stringify(settings.configuration),
      cta_asset_id: settings.cta_asset_id,
      daily_times: JSON.stringify(settings.daily_times),
      time_zone: settings.time_zone,
      created_at: now,
      updated_at: now,
    })
    .returning("*");
  return automationOutput(trx, row);
}

export interface AutomationChanges {
  name?: string | undefined;
  configuration?: Record<string, unknown> | undefined;
  cta_asset_id?: string | null | undefined;
  daily_times?: string[] | undefined;
  time_zone?: string | undefined;
}

/**
 * Validates `changes` applied to the owner's automation (the kind never changes) and returns the merged
 * settings; used by `describe` (call time) and again by `updateAutomation` (after approval).
 * @throws ToolError not_found / validation_failed.
 */
export async function previewUpdate(
  db: Knex,
  owner: Owner,
  automationId: string,
  changes: AutomationChanges,
) {
  const row = await ownedAutomation(db, owner, automationId);
  const current = automationView(row);
  if (Object.values(changes).every((v) => v === undefined)) {
    throw new ToolError("validation_failed", "give at least one field to change");
  }
  const settings: AutomationSettings = {
    kind: current.kind,
    configuration: changes.configuration ?? current.configuration,
    cta_asset_id: changes.cta_asset_id === undefined ? current.cta_asset_id : changes.cta_asset_id,
    daily_times: changes.daily_times ?? current.daily_times,
    time_zone: changes.time_zone ?? current.time_zone,
  };
  return {
    row,
    settings: await validateSettings(db, owner, settings),
    name: changes.name?.trim() ?? current.name,
  };
}

/**
 * Applies an approved update. When the automation is enabled, the publish facts the approval showed
 * (`approvedFacts`) are bound as approved (./publish-binding.ts), after checking they are still the current
 * ones. @throws ToolError not_found / validation_failed (also when the product changed since the approval).
 */
export async function updateAutomation(
  db: Knex,
  owner: Owner,
  automationId: string,
  changes: AutomationChanges,
  now: Date,
  approvedFacts?: PublishFacts | null,
) {
  const { settings, name } = await previewUpdate(db, owner, automationId, changes);
  const [row] = await db("automations")
    .where({ id: automationId })
    .update({
      name,
      template_id: (settings.configuration.template_id as string | undefined) ?? null,
      configuration: JSON.stringify(settings.configuration),
      cta_asset_id: settings.cta_asset_id,
      daily_times: JSON.stringify(settings.daily_times),
      time_zone: settings.time_zone,
      updated_at: now,
    })
    .returning("*");
  if (row.status === "enabled" && approvedFacts !== undefined) {
    await assertFactsCurrent(db, approvedFacts, settings.configuration);
    await bindPublishFacts(db, row.id, approvedFacts, now);
    row.approved_publish = approvedFacts;
  }
  return automationOutput(db, row);
}

/**
 * Checks that `approved` (the publish facts an approval page showed) are still those of `configuration`.
 * @throws ToolError validation_failed naming what changed (nothing is bound or published then).
 */
export async function assertFactsCurrent(
  db: Knex,
  approved: PublishFacts | null,
  configuration: Record<string, unknown>,
): Promise<void> {
  const current = await publishFacts(db, configuration);
  if (factsFingerprint(current) === factsFingerprint(approved)) return;
  const changed = approved ? factChanges(approved, current) : ["the product changed"];
  throw new ToolError(
    "validation_failed",
    `what the automation publishes changed after the approval was requested (${changed.join("; ")}); nothing was approved. Request approval again so that the owner approves what its runs will publish.`,
  );
}

/**
 * Enables or disables the owner's automation (approved effect). Enabling re-validates the definition (the
 * CTA video or product may have gone since the draft was saved).
 * @throws ToolError not_found / validation_failed.
 */
export async function setAutomationStatus(
  db: Knex,
  owner: Owner,
  automationId: string,
  status: "enabled" | "disabled",
  now: Date,
  approvedFacts?: PublishFacts | null,
) {
  const row = await ownedAutomation(db, owner, automationId);
  const patch: Record<string, unknown> = { status, status_reason: null, updated_at: now };
  if (status === "enabled") {
    const v = automationView(row);
    const settings = await validateSettings(db, owner, v);
    // Enabling binds what the approval page showed its runs will publish (./publish-binding.ts).
    if (approvedFacts !== undefined) {
      await assertFactsCurrent(db, approvedFacts, settings.configuration);
      patch.approved_publish = approvedFacts ? JSON.stringify(approvedFacts) : null;
      patch.approved_publish_at = now;
    }
  }
  const [updated] = await db("automations")
    .where({ id: row.id })
    // A status the owner sets replaces any reason the service recorded (src/domain/account/suspension.ts).
    .update(patch)
    .returning("*");
  return automationView(updated);
}

/** Deletes the owner's automation (soft delete; frees its slot; its runs stay readable by id). */
export async function deleteAutomation(db: Knex, owner: Owner, automationId: string, now: Date) {
  const row = await ownedAutomation(db, owner, automationId);
  await db("automations")
    .where({ id: row.id })
    .update({ deleted_at: now, status: "disabled", updated_at: now });
  return { automation_id: row.id as string, deleted: true };
}

/** One page of the owner's automations, newest first, optionally by kind and status. */
export async function listAutomations(
  db: Knex,
  owner: Owner,
  f: {
    kind?: string | undefined;
    status?: string | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
  },
) {
  const limit = pageSize(f.limit);
  const q = db("automations").where(ownedBy(owner)).whereNull("deleted_at").select("*");
  if (f.kind) q.where({ kind: f.kind });
  if (f.status) q.where({ status: f.status });
  const page = await keysetPage(db, q, { limit, cursor: f.cursor });
  const items: AutomationOutput[] = [];
  for (const r of page.rows) items.push(await automationOutput(db, r));
  return { items, next_cursor: page.next_cursor };
}
