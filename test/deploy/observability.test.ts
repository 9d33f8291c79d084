/**
 * The deploy recipe's health checks, Prometheus configuration, alert rules and Grafana dashboard
 * (deploy/; docs/operations.md "Health, metrics and traces"): the image and every long-running compose service
 * ask /readyz on HEALTH_PORT, Caddy sends traffic to ready servers only, Prometheus and Grafana come with the
 * `observability` profile, Prometheus scrapes every instance's METRICS_PORT and loads the five alerts, and
 * every metric the alerts and the dashboard name is one the service exposes (read from its sources and from
 * prom-client's default metrics).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { collectDefaultMetrics, Registry } from "prom-client";
import YAML from "yaml";

const root = new URL("../../", import.meta.url);
const read = (file: string) => readFile(new URL(file, root), "utf8");
const yaml = async (file: string) => YAML.parse(await read(file), { merge: true });

const APP_SERVICES = ["serve-1", "serve-2", "worker-1", "worker-2"];

test("the image and every long-running service check /readyz on HEALTH_PORT; Caddy routes to ready servers", async () => {
  const dockerfile = await read("deploy/Dockerfile");
  assert.match(dockerfile, /^ENV HEALTH_PORT=8081$/m);
  assert.match(
    dockerfile,
    /^HEALTHCHECK [^\n]*\\\n\s+CMD \["node", "-e", "fetch\('http:\/\/127\.0\.0\.1:' \+ process\.env\.HEALTH_PORT \+ '\/readyz'\)/m,
  );
  const compose = await yaml("deploy/compose.yaml");
  for (const name of APP_SERVICES) {
    const s = compose.services[name];
    assert.equal(s.environment.HEALTH_PORT, "8081", name);
    assert.equal(s.environment.METRICS_PORT, "9464", name);
    assert.ok(s.healthcheck.test.join(" ").includes("http://127.0.0.1:8081/readyz"), name);
  }
  assert.deepEqual(compose.services.migrate.healthcheck, { disable: true });
  assert.deepEqual(compose.services.caddy.depends_on, {
    "serve-1": { condition: "service_healthy" },
    "serve-2": { condition: "service_healthy" },
  });
  assert.match(await read("deploy/Caddyfile"), /health_uri \/readyz/);
});

test("Prometheus and Grafana come with the observability profile; Prometheus scrapes every instance", async () => {
  const compose = await yaml("deploy/compose.yaml");
  for (const name of ["prometheus", "grafana"])
    assert.deepEqual(compose.services[name].profiles, ["observability"]);
  for (const name of [...APP_SERVICES, "postgres", "caddy"])
    assert.equal(compose.services[name].profiles, undefined);
  const prometheus = await yaml("deploy/prometheus/prometheus.yml");
  assert.deepEqual(prometheus.rule_files, ["/etc/prometheus/alerts.yml"]);
  const job = prometheus.scrape_configs.find((j: { job_name: string }) => j.job_name === "social-mcp");
  const targets = job.static_configs.flatMap((c: { targets: string[] }) => c.targets).sort();
  assert.deepEqual(targets, APP_SERVICES.map((s) => `${s}:9464`).sort());
  const mounts = compose.services.prometheus.volumes.join(" ");
  assert.match(mounts, /\.\/prometheus\/alerts\.yml:\/etc\/prometheus\/alerts\.yml/);
  const datasource = (await yaml("deploy/grafana/provisioning/datasources/prometheus.yml")).datasources[0];
  assert.equal(datasource.url, "http://prometheus:9090");
  const provider = (await yaml("deploy/grafana/provisioning/dashboards/dashboards.yml")).providers[0];
  assert.ok(compose.services.grafana.volumes.some((v: string) => v.endsWith(`:${provider.options.path}:ro`)));
});

/** The families the service exposes: its own (declared in src/observability/) and prom-client's defaults. */
async function exposedFamilies(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const file of ["src/observability/metrics.ts", "src/observability/collectors.ts"])
    for (const m of (await read(file)).matchAll(/(?:counter|histogram|gauge)\(\s*"([a-z_]+)"/g))
      names.add(`social_mcp_${m[1]}`);
  names.add("social_mcp_scrape_errors_total");
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const m of registry.getMetricsAsArray()) names.add(m.name);
  names.add("up");
  return names;
}

const familyOf = (name: string) => name.replace(/_(bucket|sum|count)$/, "");

test("the five alerts, and every metric the alerts and the dashboard use is exposed by the service", async () => {
  const families = await exposedFamilies();
  assert.ok(
    families.has("social_mcp_tool_calls_total") && families.has("social_mcp_queue_oldest_job_age_seconds"),
  );
  const rules = (await yaml("deploy/prometheus/alerts.yml")).groups.flatMap(
    (g: { rules: unknown[] }) => g.rules,
  );
  assert.deepEqual(
    rules.map((r: { alert: string }) => r.alert),
    [
      "SocialMcpNotReady",
      "SocialMcpQueueStalled",
      "SocialMcpDeliveryFailureRate",
      "SocialMcpProviderErrorRate",
      "SocialMcpSyncLate",
    ],
  );
  const rule = (name: string) => rules.find((r: { alert: string }) => r.alert === name);
  assert.equal(rule("SocialMcpNotReady").for, "2m");
  assert.match(rule("SocialMcpQueueStalled").expr, /social_mcp_queue_oldest_job_age_seconds\) > 600/);
  assert.match(rule("SocialMcpDeliveryFailureRate").expr, /sum by \(network\)/);
  assert.match(rule("SocialMcpProviderErrorRate").expr, /sum by \(provider\)/);
  assert.match(rule("SocialMcpSyncLate").expr, /social_mcp_analytics_sync_deadline_missed/);
  const dashboard = JSON.parse(await read("deploy/grafana/dashboards/social-mcp.json"));
  assert.equal(dashboard.uid, "social-mcp");
  const exprs = [
    ...rules.map((r: { expr: string }) => r.expr),
    ...dashboard.panels.flatMap((p: { targets?: Array<{ expr: string; datasource: { uid: string } }> }) =>
      (p.targets ?? []).map((t) => {
        assert.equal(t.datasource.uid, "prometheus");
        return t.expr;
      }),
    ),
  ];
  assert.ok(exprs.length > 25);
  for (const expr of exprs)
    for (const [name] of expr.matchAll(/\b(?:social_mcp|nodejs|process)_[a-z0-9_]+|\bup\b/g))
      assert.ok(families.has(familyOf(name)), `${name} (in ${expr}) is not a metric of the service`);
});
