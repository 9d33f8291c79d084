/**
 * `npm run inspector:apps`: the MCP Inspector's CLI (npm @modelcontextprotocol/inspector 2.12.0, run with
 * npx) probes the real service's MCP Apps metadata: `--method tools/list --app-info --advertise-apps`, once
 * for the legacy protocol era (initialize, then the session id that says the client shows views) and once for
 * the modern one (2026-07-28, capabilities in every request). Each tool whose results a view shows must be
 * reported with its `ui://` view and the view's CSP (the service's origin), read with resources/read; every
 * other tool must be reported without an app. Exit 0 when both eras agree with tools.yaml, 1 otherwise.
 * Needs PostgreSQL (DATABASE_URL, or 127.0.0.1:5432) and the npm registry (npx fetches the Inspector once).
 */
import { TOOLS } from "../../generated/registry.ts";
import { ERAS, inspector } from "./inspector-cli.ts";
import { startService } from "./service.ts";

/** The problems in the Inspector's NDJSON report `out` for a service whose media origin is `origin`. */
function check(out: string, origin: string): string[] {
  const reports = out
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, any>)
    .map((r) => (r.appInfo ?? r) as Record<string, any>);
  const problems: string[] = [];
  for (const tool of TOOLS) {
    const r = reports.find((x) => x.toolName === tool.name);
    const want = tool._meta?.ui.resourceUri;
    if (!r) problems.push(`${tool.name}: not reported`);
    else if (!want && r.hasApp) problems.push(`${tool.name}: reported an app it does not have`);
    else if (want) {
      if (!r.hasApp || r.resourceUri !== want)
        problems.push(`${tool.name}: expected ${want}, got ${JSON.stringify(r)}`);
      else if (r.resourceError) problems.push(`${tool.name}: ${r.resourceError}`);
      else if (JSON.stringify(r.csp?.resourceDomains) !== JSON.stringify([origin]))
        problems.push(`${tool.name}: CSP ${JSON.stringify(r.csp)}`);
    }
  }
  return problems;
}

async function main(): Promise<number> {
  const service = await startService("inspector");
  const origin = `http://127.0.0.1:${service.appPort}`;
  let failed = 0;
  try {
    for (const era of ERAS) {
      const run = await inspector([
        `${origin}/mcp`,
        "--transport",
        "http",
        "--header",
        `Authorization: Bearer ${service.token}`,
        "--protocol-era",
        era,
        "--method",
        "tools/list",
        "--app-info",
        "--advertise-apps",
        "--quiet",
      ]);
      const problems =
        run.code === 0 ? check(run.out, origin) : [`exit ${run.code}: ${run.err.slice(0, 2000)}`];
      const apps = TOOLS.filter((t) => t._meta).length;
      if (problems.length === 0)
        console.log(`inspector ${era}: ${apps} tools report their view, the others none`);
      else {
        failed += 1;
        console.error(`inspector ${era}:\n  ${problems.join("\n  ")}`);
      }
    }
  } finally {
    await service.close();
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`inspector:apps: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
