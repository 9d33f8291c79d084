/**
 * Import rules (docs/ARCHITECTURE.md): imports flow one way, from the top layer down.
 *   main, cli, server, app, bootstrap, observability/register (tracing starts before anything loads)
 *   http
 *   mcp | oauth | web | operations | observability/{health,listeners,collectors}   (peers; no cycles)
 *   runtime (the tool pipeline), generated/ (the registry binds handlers)
 *   tools
 *   domain
 *   context.ts, tool-contract.ts (the application context and the tool handler contract: types)
 *   providers
 *   db, config/, crypto, errors, log, keys, scopes, observability/{metrics,tracing,tracing-sdk} (used by
 *   every layer above)
 * A module may import its own layer or any layer below it, never one above. Checked by `npm run lint`.
 */
const layers = [
  { name: "top", path: "^src/(main|server|app|bootstrap)\\.ts$|^src/cli/|^src/observability/register\\.ts$" },
  { name: "http", path: "^src/http/" },
  {
    name: "surface",
    path: "^src/(mcp|oauth|web|operations)/|^src/observability/(health|listeners|collectors)\\.ts$",
  },
  { name: "runtime", path: "^src/runtime/|^generated/registry\\.ts$" },
  { name: "tools", path: "^src/tools/|^generated/tool-types\\.ts$" },
  { name: "domain", path: "^src/domain/" },
  { name: "context", path: "^src/(context|tool-contract)\\.ts$" },
  { name: "providers", path: "^src/providers/" },
  {
    name: "base",
    path: "^src/(db|crypto|config)/|^src/(errors|log|keys|scopes|ids|lazy-require)\\.ts$|^src/observability/(metrics|tracing|tracing-sdk)\\.ts$",
  },
];

const forbidden = [];
layers.forEach((layer, i) => {
  const above = layers.slice(0, i).map((l) => `(${l.path})`);
  if (above.length === 0) return;
  forbidden.push({
    name: `no-up-from-${layer.name}`,
    comment: `${layer.name} may not import a layer above it (${layers
      .slice(0, i)
      .map((l) => l.name)
      .join(", ")})`,
    severity: "error",
    from: { path: layer.path },
    to: { path: above.join("|") },
  });
});
forbidden.push({
  name: "no-circular",
  comment: "no import cycles",
  severity: "error",
  from: { path: "^(src|generated)/" },
  to: { circular: true },
});
forbidden.push({
  name: "no-shared",
  comment: "the repository stands alone: nothing reads ../shared",
  severity: "error",
  from: {},
  to: { path: "(^|/)\\.\\./shared/" },
});

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(node_modules|test|bench|codegen|migrations)/" },
  },
};
