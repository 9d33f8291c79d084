/**
 * The per-tool part of generated/guide.md: a summary table, then one section per tool (grouped as in
 * DESIGN.md section 4) with its flags, arguments and an example `tools/call` request built from `example`.
 */
import type { CodegenContext, ResolvedTool } from "../context.ts";
import { isRecord } from "../issues.ts";
import { GROUPS } from "../spec.ts";

/** Escapes text for a Markdown table cell. */
export function cell(text: unknown): string {
  return String(text ?? "")
    .replace(/\s*\n\s*/g, " ")
    .replaceAll("|", "\\|");
}

const yesNo = (b: boolean) => (b ? "yes" : "no");

/** A short type label for a schema: `string (uuid)`, `"draft" \| "scheduled"`, `integer`, `object[]`. */
export function typeLabel(schema: unknown): string {
  if (!isRecord(schema)) return "any";
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  for (const key of ["oneOf", "anyOf"] as const) {
    const list = schema[key];
    if (Array.isArray(list)) return list.map(typeLabel).join(" | ");
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  return (
    types
      .map((t) => {
        if (t === "array") return `${typeLabel(schema.items)}[]`;
        if (t === "string" && typeof schema.format === "string") return `string (${schema.format})`;
        return String(t);
      })
      .join(" | ") || "any"
  );
}

/**
 * Bounds and default of a schema in words: `1-50, default 20`, `max 2200 chars`. A nullable field
 * (`anyOf: [{type: X, ...}, {type: "null"}]`, codegen/nullable.ts) shows the bounds of its X branch.
 */
export function constraints(input: Record<string, unknown>): string {
  const branches = Array.isArray(input.anyOf) ? input.anyOf.filter(isRecord) : [];
  const nonNull = branches.filter((b) => b.type !== "null");
  const schema =
    branches.length === 2 && nonNull.length === 1 ? { ...nonNull[0], default: input.default } : input;
  const parts: string[] = [];
  const min = schema.minimum ?? schema.minLength ?? schema.minItems;
  const max = schema.maximum ?? schema.maxLength ?? schema.maxItems;
  const unit = schema.maxLength !== undefined ? " chars" : schema.maxItems !== undefined ? " items" : "";
  if (min !== undefined && max !== undefined) parts.push(`${min}-${max}${unit}`);
  else if (max !== undefined) parts.push(`max ${max}${unit}`);
  else if (min !== undefined) parts.push(`min ${min}${unit}`);
  if (typeof schema.pattern === "string") parts.push(`pattern \`${schema.pattern}\``);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(", ");
}

function fieldTable(schema: Record<string, unknown>, emptyText: string): string {
  const props = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(props);
  if (names.length === 0) return `${emptyText}\n`;
  const rows = names.map((name) => {
    const s = isRecord(props[name]) ? props[name] : {};
    const notes = [typeof s.description === "string" ? s.description : "", constraints(s)]
      .filter(Boolean)
      .join(" ");
    return `| \`${name}\` | ${cell(typeLabel(s))} | ${required.has(name) ? "yes" : "no"} | ${cell(notes)} |`;
  });
  return ["| Field | Type | Required | Notes |", "|---|---|---|---|", ...rows, ""].join("\n");
}

/** The JSON-RPC body of a `tools/call` for `tool` with its example arguments (revision 2026-07-28). */
export function exampleRequest(tool: ResolvedTool, protocolVersion: string): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: tool.name,
      arguments: tool.example,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": protocolVersion,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
}

function toolSection(tool: ResolvedTool, ctx: CodegenContext): string {
  const flags = [
    `- Scope: \`${tool.scope}\``,
    `- Access: ${tool.access}; browser approval: ${yesNo(tool.review)}; queued handler: ${yesNo(tool.queued)}`,
    `- Budget: ${tool.budget}; credits: ${tool.credits}; plan: ${tool.plan ?? "any"}`,
    `- Hints: ${(["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const)
      .map((k) => `${k}=${tool.annotations[k]} (${tool.annotation_reasons[k]})`)
      .join("; ")}`,
    ...(tool._meta ? [`- View (MCP Apps): \`${tool._meta.ui.resourceUri}\` (see Views)`] : []),
  ];
  const flow = [
    tool.review
      ? "The call answers `approval_required` with an `approval_url` and an `operation_id`; nothing runs until the user approves in the browser. Poll `get_job_status`; once `succeeded`, `data.result` holds the result below."
      : tool.queued
        ? "The call answers `queued` with an `operation_id` and the `data` below (or `dispatch_failed`: retry the identical call); a background worker does the rest. Poll `get_job_status` (or the tool-specific read)."
        : tool.result
          ? "The call runs inline and answers `succeeded` with the `data` below, or, when its work must run in the background, `queued` with an `operation_id`: poll `get_job_status`; once `succeeded`, `data.result` holds the result below."
          : "The call runs inline and answers `succeeded` with the `data` below.",
    tool.access === "write"
      ? "An exact retry (same `idempotency_key`, same arguments) returns the first answer, success or tool error, without running again or counting against the budget (guide: Idempotency keys)."
      : "",
  ]
    .filter(Boolean)
    .join(" ");
  const out = [
    `### \`${tool.name}\`: ${tool.title}`,
    "",
    tool.description.trim(),
    "",
    ...flags,
    "",
    flow,
    "",
    "Arguments:",
    "",
    fieldTable(tool.input, "No arguments (`{}`)."),
  ];
  if (tool.output) out.push("Returns (`data`):", "", fieldTable(tool.data, "An empty object."));
  if (tool.result)
    out.push("Result (`data.result` of get_job_status):", "", fieldTable(tool.result, "An empty object."));
  out.push(
    "Example request:",
    "",
    "```json",
    JSON.stringify(exampleRequest(tool, ctx.protocolRevisions[0] ?? ""), null, 2),
    "```",
    "",
  );
  return out.join("\n");
}

/** @returns the "Tools" chapter of the guide. */
export function toolsChapter(ctx: CodegenContext, heading: string): string {
  const summary = [
    "| Tool | Group | Scope | Access | Approval | Queued | Budget |",
    "|---|---|---|---|---|---|---|",
    ...ctx.tools.map(
      (t) =>
        `| \`${t.name}\` | ${t.group} | \`${t.scope}\` | ${t.access} | ${yesNo(t.review)} | ${yesNo(t.queued)} | ${t.budget} |`,
    ),
  ].join("\n");
  const groups = GROUPS.filter((g) => ctx.tools.some((t) => t.group === g)).map((group) => {
    const tools = ctx.tools.filter((t) => t.group === group);
    return [`## Tools: ${group}`, "", ...tools.map((t) => toolSection(t, ctx))].join("\n");
  });
  return [`## ${heading}`, "", `${ctx.tools.length} tools.`, "", summary, "", ...groups].join("\n");
}
