/**
 * Reading automation runs (service spec 2.7, 3.1 rule 2): a run is addressed by `kind` and `run_id`; another
 * user's or workspace's run, or a kind that does not match, is `not_found`.
 */
import { isUuid } from "../../ids.ts";
import type { Knex } from "../../db/knex.ts";
import { pick, pickOrNull } from "../../db/rows.ts";
import { notFound } from "../../errors.ts";
import { keysetPage, pageSize } from "../cursor.ts";
import { type Owner, ownedBy } from "../owner.ts";
import { ownedAutomation } from "./automations.ts";

export interface AutomationRunView {
  run_id: string;
  automation_id: string;
  kind: "video" | "carousel";
  trigger: "manual" | "schedule";
  status: "queued" | "running" | "succeeded" | "failed";
  credits_charged: number;
  post_id: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
}

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** Maps an automation_runs row to its view. */
export function automationRunView(r: any): AutomationRunView {
  return {
    run_id: r.id,
    ...pick(r, ["automation_id", "kind", "trigger", "status", "credits_charged"]),
    ...pickOrNull(r, ["post_id", "result", "error"]),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** The owner's run of `kind`. @throws ToolError not_found. */
export async function getAutomationRun(
  db: Knex,
  owner: Owner,
  kind: string,
  runId: string,
): Promise<AutomationRunView> {
  if (!isUuid(runId)) throw notFound("automation run");
  const r = await db("automation_runs").where(ownedBy(owner)).where({ id: runId, kind }).first();
  if (!r) throw notFound("automation run");
  return automationRunView(r);
}

/** One page of the owner's runs, newest first, optionally of one automation or kind. */
export async function listAutomationRuns(
  db: Knex,
  owner: Owner,
  f: {
    automation_id?: string | undefined;
    kind?: string | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
  },
) {
  const limit = pageSize(f.limit);
  if (f.automation_id) await ownedAutomation(db, owner, f.automation_id);
  const q = db("automation_runs").where(ownedBy(owner)).select("*");
  if (f.automation_id) q.where({ automation_id: f.automation_id });
  if (f.kind) q.where({ kind: f.kind });
  const page = await keysetPage(db, q, { limit, cursor: f.cursor });
  return { items: page.rows.map(automationRunView), next_cursor: page.next_cursor };
}
