/**
 * How the worker and the approval pages find a tool by name: the generated registry
 * (generated/registry.ts `TOOLS_BY_NAME`) unless a lookup was set for the context (tests and benchmarks
 * register small in-test tools, e.g. one that blocks until its process is killed).
 */
import { TOOLS_BY_NAME } from "../../generated/registry.ts";
import type { AppContext } from "../context.ts";
import type { RegisteredTool } from "../tool-contract.ts";

export type ToolLookup = (name: string) => RegisteredTool | undefined;

const overrides = new WeakMap<AppContext, ToolLookup>();

/** Makes `ctx`'s worker and approval pages resolve tools through `lookup` (tests, benchmarks). */
export function setToolLookup(ctx: AppContext, lookup: ToolLookup): void {
  overrides.set(ctx, lookup);
}

const registryLookup: ToolLookup = (name) => TOOLS_BY_NAME.get(name);

/** The lookup for `ctx`: the override if one was set, else the generated registry. */
export async function toolLookup(ctx: AppContext): Promise<ToolLookup> {
  return overrides.get(ctx) ?? registryLookup;
}
