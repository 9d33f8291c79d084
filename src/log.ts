/**
 * The pino logger. Redacts authorization headers, cookies, tokens, passwords, prompts and captions wherever
 * they appear; request bodies are never logged (service spec 7 rule 7).
 */
import { type DestinationStream, type Logger, pino } from "pino";

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
 */
export function createLogger(level = "info", destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: "[redacted]" }, base: { service: "social-mcp" } };
  return destination ? pino(options, destination) : pino(options);
}
