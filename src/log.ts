/**
 * The pino logger. Redacts authorization headers, cookies, tokens, passwords, prompts and captions wherever
 * they appear; request bodies are never logged (service spec 7 rule 7).
 */
import { type DestinationStream, type Logger, pino } from "pino";
import pretty from "pino-pretty";

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
 * Creates the service logger. `level` is a pino level; "silent" disables output. `destination` (default
 * stdout) receives one JSON line per entry (tests capture it to prove what never reaches a log).
 * `options.pretty` (default: stdout is a terminal and no destination is given) formats entries for people
 * with pino-pretty instead; redaction applies either way.
 */
export function createLogger(
  level = "info",
  destination?: DestinationStream,
  options: { pretty?: boolean } = {},
): Logger {
  const base = { level, redact: { paths: REDACT, censor: "[redacted]" }, base: { service: "social-mcp" } };
  const human = options.pretty ?? (destination === undefined && process.stdout.isTTY === true);
  if (human) {
    return pino(
      base,
      pretty({
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
