/**
 * Loads a CommonJS package the first time it is used instead of when the importing module loads: for the
 * few large dependencies that only some paths need (twitter-text with core-js, cheerio, pino-pretty, about
 * 500 modules between them), so that a process that never weighs an X caption, parses a product page or
 * prints for a terminal does not load them. docs/testing.md has the measurement.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** A getter that `require`s `specifier` on its first call and returns the same module after; throws what require throws. */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(specifier) as T;
    return loaded;
  };
}
