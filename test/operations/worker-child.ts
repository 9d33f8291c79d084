/**
 * A worker process for worker.kill.test.ts: boots on DATABASE_URL and consumes operations with one in-test
 * tool, `block_forever`, whose handler records that it started (a `products` row named "started <op id>")
 * and never returns. The test SIGKILLs this process mid-handler.
 */
import { boot } from "../../src/bootstrap.ts";
import { setToolLookup } from "../../src/operations/tools.ts";
import { startWorker } from "../../src/operations/worker.ts";
import { blockForever } from "./kill-tool.ts";

const booted = await boot({ env: { ...process.env, LOG_LEVEL: "silent" }, migrate: false });
setToolLookup(booted.ctx, (name) => (name === blockForever.name ? blockForever : undefined));
await startWorker(booted.ctx, { schedules: false });
console.log("worker ready");
