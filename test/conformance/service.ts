/**
 * The real service for the command-line checks of test/conformance/ (`npm run conformance`,
 * `npm run inspector:apps`): a fresh database, the app booted on a free loopback port with rate limits out of
 * the way, a Pro user and an access token of a real grant with every scope. `publicBaseUrl` is the address
 * clients use (default the app's own); `close()` stops everything and drops the database.
 * Needs PostgreSQL (DATABASE_URL, or 127.0.0.1:5432).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { boot } from "../../src/bootstrap.ts";
import type { AppContext } from "../../src/context.ts";
import { createUser } from "../../src/domain/account/accounts.ts";
import { ALL_SCOPES } from "../../src/scopes.ts";
import { startServer } from "../../src/server.ts";
import type { TestApp } from "../helpers/app.ts";
import { connect } from "../helpers/tokens.ts";

/** Listens on a free loopback port; returns it. */
export async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

export interface Service {
  ctx: AppContext;
  /** The app's own port (127.0.0.1). */
  appPort: number;
  /** A bearer token with every scope. */
  token: string;
  close(): Promise<void>;
}

/** Boots the service for a command-line check (see the module comment). */
export async function startService(name: string, publicBaseUrl?: string): Promise<Service> {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const dbName = `${name}_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const appServer = http.createServer();
  const appPort = await listen(appServer);
  const booted = await boot({
    env: {
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      DATA_DIR: await mkdtemp(path.join(os.tmpdir(), `smcp-${name}-`)),
      DATABASE_URL: dbUrl.toString(),
      PUBLIC_BASE_URL: publicBaseUrl ?? `http://127.0.0.1:${appPort}`,
      PORT: String(appPort),
      RATE_LIMIT_MCP_IP: "100000",
      RATE_LIMIT_READS: "100000",
      RATE_LIMIT_WRITES: "100000",
      RATE_LIMIT_AI: "100000",
      RATE_LIMIT_APPROVAL: "100000",
      RATE_LIMIT_DELETE: "100000",
    },
  });
  const running = await startServer(booted.ctx, appServer);
  const who = await createUser(booted.ctx.db, {
    email: `${name}@example.test`,
    password: `${name}-password`,
    workspace: name,
    plan: "pro",
  });
  const { token } = await connect({ ctx: booted.ctx } as TestApp, who, [...ALL_SCOPES]);
  return {
    ctx: booted.ctx,
    appPort,
    token,
    async close() {
      await running.close(1);
      await booted.close();
      await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => {});
      await admin.end();
    },
  };
}
