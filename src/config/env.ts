/**
 * What every settings area shares (src/config/*.ts): the schema helpers for environment variables, the
 * error a bad value raises, and the reader an area builds its part of the configuration with. Every value
 * is read from the environment as a string or absent; an empty string counts as absent.
 *
 * A schema property documents its variable for the README's configuration table (codegen/config-table.ts):
 * `description` says what it does, `default` (a literal default) or `defaultText` (a derived one, e.g.
 * `{PUBLIC_BASE_URL}/mcp`) what applies when it is unset.
 */
import Type, { type TObject, type TSchema, type TSchemaOptions } from "typebox";
import ipaddr from "ipaddr.js";

/** One gibibyte, bytes. */
export const GIB = 1024 ** 3;

/** What a setting's schema says about it for the README: what it does and its default when unset. */
export interface SettingDoc extends TSchemaOptions {
  description: string;
  /** The default shown when it is not the literal `default` of an integer setting (e.g. `{DATA_DIR}/media`). */
  defaultText?: string;
}

/** A boolean variable: `true`, `false`, `1` or `0`. */
export const Bool = (doc: SettingDoc) =>
  Type.Optional(
    Type.Union([Type.Literal("true"), Type.Literal("false"), Type.Literal("1"), Type.Literal("0")], doc),
  );

/**
 * An integer variable from `min` to `max` with the default `def` (the reader checks the bounds and names the
 * variable; the schema checks the digits).
 */
export const Int = (def: number, min: number, max: number, doc: SettingDoc) =>
  Type.Optional(
    Type.String({ pattern: "^[0-9]+$", default: String(def), minimum: min, maximum: max, ...doc }),
  );

/** A string variable with the given JSON Schema string keywords (`pattern`, `minLength`, `maxLength`). */
export const Str = (
  keywords: { pattern?: string; minLength?: number; maxLength?: number },
  doc: SettingDoc,
) => Type.Optional(Type.String({ ...keywords, ...doc }));

/** A variable that takes one of `values`. */
export const OneOf = (values: readonly string[], doc: SettingDoc) =>
  Type.Optional(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      doc,
    ),
  );

/** Thrown for a bad setting; `variable` names the env variable. */
export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.variable = variable;
    this.name = "ConfigError";
  }
}

/** A URL without its trailing slashes. */
export const stripSlash = (u: string) => u.replace(/\/+$/, "");

/** True when `host` (a URL's hostname, IPv6 in brackets or not) is `localhost` or a loopback address. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  return ipaddr.isValid(h) && ipaddr.process(h).range() === "loopback";
}

/** The set values of the environment, already checked against the schema, and typed reads of them. */
export interface EnvReader {
  /** Variable name -> its value, for the variables of the schema that are set and not empty. */
  readonly picked: Readonly<Record<string, string>>;
  /** `NODE_ENV=production`. */
  readonly production: boolean;
  /**
   * The integer value of `name`, or `def` when unset.
   * @throws ConfigError naming `name` when it is not a safe integer or outside the schema's bounds.
   */
  num(name: string, def: number): number;
  /** `true`/`1` -> true, `false`/`0` -> false, unset -> `def`. */
  bool(name: string, def: boolean): boolean;
}

/**
 * The reader over `picked` (values already valid against `schema`), taking integer bounds from `schema`.
 */
export function envReader(picked: Record<string, string>, schema: TObject): EnvReader {
  const props = schema.properties as Record<string, TSchema & { minimum?: number; maximum?: number }>;
  return {
    picked,
    production: picked.NODE_ENV === "production",
    num(name, def) {
      const v = picked[name];
      if (v === undefined) return def;
      const n = Number(v);
      const s = props[name];
      if (!Number.isSafeInteger(n)) throw new ConfigError(name, "must be an integer");
      if (s?.minimum !== undefined && n < s.minimum) throw new ConfigError(name, `must be >= ${s.minimum}`);
      if (s?.maximum !== undefined && n > s.maximum) throw new ConfigError(name, `must be <= ${s.maximum}`);
      return n;
    },
    bool(name, def) {
      const v = picked[name];
      return v === undefined ? def : v === "true" || v === "1";
    },
  };
}

/**
 * A variable read by a library rather than by `loadConfig` (the AWS SDK, OpenTelemetry's SDK), listed in
 * the README's configuration table with its area.
 */
export interface ExternalSetting {
  /** The variables, as written in the table (e.g. `AWS_ACCESS_KEY_ID`). */
  names: string[];
  defaultText: string;
  description: string;
}

/** One settings area: its title in the README, its variables' schema, and variables libraries read. */
export interface ConfigArea {
  title: string;
  schema: TObject;
  external?: ExternalSetting[];
}
