/**
 * Scraping `GET /metrics` (src/observability/listeners.ts) and reading it with parse-prometheus-text-format,
 * a parser of the Prometheus text format (https://prometheus.io/docs/instrumenting/exposition_formats/).
 * That parser folds every series of a labelled histogram into one and drops their labels (its
 * `flattenMetrics`), so the histograms are handed to it as untyped families: their `_bucket`, `_sum` and
 * `_count` samples are then parsed with their labels, and their declared type is kept from the `# TYPE` line.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";

type Parsed = Array<{
  name: string;
  help: string;
  type: string;
  metrics: Array<{ value?: string; labels?: Record<string, string> }>;
}>;

const parse = createRequire(import.meta.url)("parse-prometheus-text-format") as (text: string) => Parsed;

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  /** Declared type of each family (`counter`, `gauge`, `histogram`, `summary`, `untyped`), by name. */
  types: Map<string, string>;
  /** Every sample (a histogram's as `{name}_bucket`, `{name}_sum`, `{name}_count`). */
  samples: Sample[];
  /** The sum of the samples named `name` whose labels include `labels` (0 when none). */
  value(name: string, labels?: Record<string, string>): number;
  /** The samples named `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
}

const matches = (s: Sample, name: string, labels: Record<string, string>) =>
  s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v);

/** Reads the text of a scrape. @throws when the parser refuses it. */
export function readScrape(text: string): Scrape {
  const types = new Map<string, string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(m[1]!, m[2]!);
  const samples: Sample[] = [];
  for (const family of parse(text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped")))
    for (const m of family.metrics)
      samples.push({ name: family.name, labels: m.labels ?? {}, value: Number(m.value) });
  return {
    types,
    samples,
    find: (name, labels = {}) => samples.filter((s) => matches(s, name, labels)),
    value: (name, labels = {}) =>
      samples.filter((s) => matches(s, name, labels)).reduce((sum, s) => sum + s.value, 0),
  };
}

/** `GET url` (a metrics listener) and its parsed text. Asserts a 200 in the Prometheus text format. */
export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return readScrape(await res.text());
}
