/**
 * Emits generated/catalog.json, the public machine-readable catalog (service spec 4.6): protocol revisions,
 * scopes, error codes, limits, envelope states and, per tool, its schemas and flags. Keys are in a fixed
 * order; tools are sorted by name; no timestamps.
 */
import type { CodegenContext, ResolvedTool } from "../context.ts";

/** The catalog entry of one tool. `queued_handler: false` does not imply a finished output. */
export function catalogTool(tool: ResolvedTool): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    group: tool.group,
    description: tool.description,
    scope: tool.scope,
    access: tool.access,
    browser_approval: tool.review,
    queued_handler: tool.queued,
    ...(!tool.review && !tool.queued && tool.result ? { queues_when_needed: true } : {}),
    budget: tool.budget,
    credits: tool.credits,
    plan: tool.plan,
    annotations: tool.annotations,
    annotation_reasons: tool.annotation_reasons,
    input_schema: tool.input,
    output_schema: tool.envelope,
    ...(tool.result ? { result_schema: tool.result } : {}),
    example: tool.example,
    ...(tool._meta ? { _meta: tool._meta } : {}),
  };
}

/** @returns the catalog as an object (the route and the bundle serve the emitted bytes). */
export function buildCatalog(ctx: CodegenContext): Record<string, unknown> {
  return {
    _generated: ctx.provenance,
    protocol_revisions: [...ctx.protocolRevisions],
    scopes: ctx.scopes,
    error_codes: ctx.errorCodes,
    limits: ctx.limits,
    envelope: {
      fields: ["request_id", "status", "data", "operation_id", "approval_url", "error", "credits_charged"],
      states: ctx.states,
    },
    tools: ctx.tools.map(catalogTool),
  };
}

/** @returns generated/catalog.json: two-space JSON with a trailing newline. */
export function emitCatalog(ctx: CodegenContext): string {
  return `${JSON.stringify(buildCatalog(ctx), null, 2)}\n`;
}
