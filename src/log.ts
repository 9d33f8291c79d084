/**
 * The pino logger. Redacts authorization headers, cookies, tokens, passwords, prompts and captions wherever
 * they appear; request bodies are never logged (service spec 7 rule 7).
 */
import { type DestinationStream, type Logger, pino } from "pino";
import type Pretty from "pino-pretty";
import { lazyRequire } from "./lazy-require.ts";
import { traceLogFields, tracer } from "./observability/tracing.ts";

/** pino-pretty, loaded only when entries are formatted for a terminal. */
const pretty = lazyRequire<typeof Pretty>("pino-pretty");

export type { Logger };

const REDACT = [
  "req.headers.authorization",
  "req.headers.cookie",
  'res.headers["set-cookie"]',
  "*.authorization",
  "*.access_token",
  "*.refresh_token",
  "*.token",
  "*.code",
  "*.code_verifier",
  "*.password",
  "*.prompt",
  "*.caption",
  "*.body",
  "*.arguments",
];

/**
 * Creates the service logger. `level` is a pino level; "silent" disables output. While tracing is on (it
 * starts before any logger is made), each line also has the active span's `trace_id` and `span_id`. `destination` (default
 * stdout) receives one JSON line per entry (tests capture it to prove what never reaches a log).
 * `options.pretty` (default: stdout is a terminal and no destination is given) formats entries for people
 * with pino-pretty instead; redaction applies either way.
 */
export function createLogger(
  level = "info",
  destination?: DestinationStream,
  options: { pretty?: boolean } = {},
): Logger {
  const base = {
    level,
    redact: { paths: REDACT, censor: "[redacted]" },
    base: { service: "social-mcp" },
    // With tracing on, each line carries the active span's trace_id and span_id (src/observability/tracing.ts).
    ...(tracer ? { mixin: traceLogFields } : {}),
  };
  const human = options.pretty ?? (destination === undefined && process.stdout.isTTY === true);
  if (human) {
    return pino(
      base,
      pretty()({
        colorize: destination === undefined,
        sync: true,
        ignore: "pid,hostname,service",
        translateTime: "SYS:HH:MM:ss.l",
        ...(destination ? { destination: destination as NodeJS.WritableStream } : {}),
      }),
    );
  }
  return destination ? pino(base, destination) : pino(base);
}

/** Text patterns that may carry secrets or user data inside an error message or stack, and their stand-ins. */
const TEXT_REDACTIONS: Array<[RegExp, string]> = [
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]*/g, "[jwt]"],
  [/\b(Bearer|Basic)\s+\S+/gi, "$1 [redacted]"],
  [/\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b/g, "[email]"],
  [/(https?:\/\/[^\s?#"']+)[?#][^\s"']*/gi, "$1?[query]"],
  [/\b[A-Za-z0-9_-]{32,}\b/g, "[long-token]"],
  [/"(?:[^"\\\n]|\\.)+"/g, '"[quoted]"'],
  [/`[^`\n]+`/g, "`[quoted]`"],
  [/\((?:[^()]){1,200}\)=\((?:[^()]){0,2000}\)/g, "(…)=([value])"],
];
const MAX_DETAIL = 4000;

/**
 * Removes what can identify a person or grant access from free text (error messages, stacks, Postgres
 * `detail`): JWTs, bearer/basic credentials, e-mail addresses, URL query strings, long token-like strings,
 * double-quoted and backquoted strings, `(column)=(value)` pairs; then cuts to 4000 characters. A best-effort filter for
 * debug output only: messages are never logged at info level or above.
 */
export function redactText(text: string): string {
  let out = text.length > MAX_DETAIL * 2 ? text.slice(0, MAX_DETAIL * 2) : text;
  for (const [pattern, replacement] of TEXT_REDACTIONS) out = out.replace(pattern, replacement);
  return out.length > MAX_DETAIL ? `${out.slice(0, MAX_DETAIL)}…` : out;
}

const SAFE_CODE = /^[A-Za-z0-9_.-]{1,40}$/;

/**
 * What may be logged about an error at any level (top-level fields `errorClass`, `errorCode`: a nested
 * `code` would be censored by the redaction paths): its class name and its `code` (a Node or Postgres code
 * such as ECONNRESET or 23505) when that is a short identifier. Never the message, which can carry user
 * data (a caption in a constraint violation, a URL with a token).
 */
export function errorSummary(err: unknown): { errorClass: string; errorCode?: string } {
  const e = (err ?? {}) as { name?: unknown; code?: unknown; constructor?: { name?: unknown } };
  const name =
    typeof e.name === "string"
      ? e.name
      : typeof e.constructor?.name === "string"
        ? e.constructor.name
        : typeof err;
  const code = typeof e.code === "string" || typeof e.code === "number" ? String(e.code) : undefined;
  return {
    errorClass: SAFE_CODE.test(name) ? name : "Error",
    ...(code && SAFE_CODE.test(code) ? { errorCode: code } : {}),
  };
}

/**
 * Logs an error: `fields` (which should hold a request or error id) and the summary at `error` level; the
 * message, stack and Postgres detail, passed through `redactText`, only at `debug` level.
 */
export function logError(log: Logger, err: unknown, fields: Record<string, unknown>, msg: string): void {
  log.error({ ...fields, ...errorSummary(err) }, msg);
  if (!log.isLevelEnabled("debug")) return;
  const e = (err ?? {}) as { message?: unknown; stack?: unknown; detail?: unknown };
  log.debug(
    {
      ...fields,
      ...errorSummary(err),
      err: {
        ...(typeof e.message === "string" ? { message: redactText(e.message) } : {}),
        ...(typeof e.stack === "string" ? { stack: redactText(e.stack) } : {}),
        ...(typeof e.detail === "string" ? { detail: redactText(e.detail) } : {}),
      },
    },
    `${msg} (detail)`,
  );
}
