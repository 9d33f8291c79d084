/**
 * The pino logger. Redacts authorization headers, cookies, tokens, passwords, prompts and captions wherever
 * they appear; request bodies are never logged (service spec 7 rule 7).
 */
import { pino, type Logger } from "pino";

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

/** Creates the service logger. `level` is a pino level; "silent" disables output (tests). */
export function createLogger(level = "info"): Logger {
  return pino({ level, redact: { paths: REDACT, censor: "[redacted]" }, base: { service: "social-mcp" } });
}
