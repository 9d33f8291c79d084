/**
 * What every OpenAI-shaped fake shares (test only), written from OpenAI's API reference (error object, model
 * list) as summarised in docs/providers.md ("Provider facts", checked 2026-11-25):
 * - errors are `{"error": {"message", "type", "param", "code"}}`: 400 `invalid_value` (a value outside
 *   what the parameter accepts, e.g. `param: "size"`), 400 `unknown_parameter`, 400 for a missing required
 *   parameter, 404 `model_not_found` (a model not listed, or retired), 401 `invalid_api_key`, 429
 *   `rate_limit_exceeded` with `Retry-After`;
 * - `GET /v1/models` answers `{object: "list", data: [{id, object: "model", created, owned_by}]}` with the
 *   models the key can use (a fake built with `modelsEndpoint: false` answers 404 there, as some gateways
 *   do);
 * - `faults` are answered before the route runs (scripted 429s and server errors);
 * - every request is checked against OpenAI's OpenAPI description (test/contracts/openai.json) before anything
 *   else, every JSON answer against its response schema (contract.ts; a top-level body key the schema does not
 *   name is "Unknown parameter", as OpenAI answers);
 * - test instruments (no API behaviour): `latencyMs` before every answer, `inFlight` / `maxInFlight`
 *   (requests received and not yet answered), `gate` to hold chosen requests.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Contract, type ContractRequest, type Operation, type Violation } from "./contract.ts";
import { ContractGuard } from "./contract-guard.ts";

/** An OpenAI error answer. */
export interface ApiError {
  status: number;
  headers?: Record<string, string>;
  body: { error: { message: string; type: string; param: string | null; code: string | null } };
}

export const apiError = (
  status: number,
  message: string,
  param: string | null,
  code: string | null,
  type = "invalid_request_error",
): ApiError => ({ status, body: { error: { message, type, param, code } } });

/** 400 for a parameter the endpoint does not take (OpenAI: "Unknown parameter: 'x'."). */
export const unknownParameter = (name: string) =>
  apiError(400, `Unknown parameter: '${name}'.`, name, "unknown_parameter");

/** 400 for a value the parameter does not accept, listing the supported ones. */
export const invalidValue = (param: string, value: unknown, supported: string) =>
  apiError(
    400,
    `Invalid value: '${String(value)}'. Supported values are: ${supported}.`,
    param,
    "invalid_value",
  );

/** 400 for a missing required parameter. */
export const missingParameter = (name: string) =>
  apiError(400, `Missing required parameter: '${name}'.`, name, "missing_required_parameter");

/** 404 for a model the key cannot use (never existed, not listed, or shut down). */
export const modelNotFound = (model: string) =>
  apiError(
    404,
    `The model \`${model}\` does not exist or you do not have access to it.`,
    null,
    "model_not_found",
  );

/** 429 with `Retry-After` (seconds). */
export const rateLimited = (retryAfterSeconds: number): ApiError => ({
  ...apiError(429, "Rate limit reached; please try again later.", null, "rate_limit_exceeded", "requests"),
  headers: { "retry-after": String(retryAfterSeconds) },
});

/** A scripted answer given before the route runs. */
export type Fault = ApiError | { status: number; raw: string };

/** One recorded request. */
export interface Recorded {
  method: string;
  path: string;
  auth: string | undefined;
  body: any;
}

export interface FakeOptions {
  /** Model ids `GET /v1/models` lists and the endpoints accept; any other model is `model_not_found`. */
  models?: string[] | undefined;
  /** When false, `GET /v1/models` answers 404 (a gateway without the endpoint). Default true. */
  modelsEndpoint?: boolean | undefined;
  /** The bearer key the fake accepts; undefined accepts any or none. */
  apiKey?: string | undefined;
}

/** A route: the parsed JSON body (undefined when not JSON) and the path; answers JSON or raw bytes. */
export type Route = (
  req: { method: string; path: string; body: any },
  fake: OpenAiFake,
) =>
  | ApiError
  | { status: number; json: unknown }
  | { status: number; bytes: Buffer; contentType: string }
  | undefined
  | Promise<
      | ApiError
      | { status: number; json: unknown }
      | { status: number; bytes: Buffer; contentType: string }
      | undefined
    >;

export interface OpenAiFake {
  /** e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  models: string[];
  requests: Recorded[];
  /** Answers used, in order, before the route runs for the next requests (not for `GET /v1/models`). */
  faults: Fault[];
  /** Fixed delay before each answer of a route, milliseconds (default 0). */
  latencyMs: number;
  /** Requests (other than `GET /v1/models`) received and not yet answered. */
  inFlight: number;
  /** The most requests ever in flight at once (what a caller's concurrency bound is checked against). */
  maxInFlight: number;
  /**
   * Awaited before each request (other than `GET /v1/models`) is answered: `n` is its 1-based order of
   * arrival. A test holds chosen requests with it (a promise that never settles holds one forever).
   */
  gate: ((request: { n: number; body: any }) => Promise<void>) | undefined;
  /** The contract violations kept since the last call; taking them stops them failing the test. */
  takeViolations(): Violation[];
  close(): Promise<void>;
}

/** Rejects a body key not in `allowed` (the first one found, like the API). */
export function unknownKey(body: Record<string, unknown>, allowed: readonly string[]): ApiError | undefined {
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  return extra === undefined ? undefined : unknownParameter(extra);
}

/** The model check every create endpoint makes: present, a string, listed. */
export function modelCheck(body: Record<string, unknown>, fake: OpenAiFake): ApiError | undefined {
  if (body.model === undefined) return missingParameter("model");
  if (typeof body.model !== "string" || !fake.models.includes(body.model))
    return modelNotFound(String(body.model));
  return undefined;
}

/**
 * Starts a fake with `routes` (tried in order; the first answer wins) and the shared behaviour above;
 * `defaultModels` when `options.models` is not given.
 */
export async function startOpenAiFake(
  options: FakeOptions,
  defaultModels: string[],
  routes: Route[],
): Promise<OpenAiFake> {
  const fake: OpenAiFake = {
    baseUrl: "",
    models: [...(options.models ?? defaultModels)],
    requests: [],
    faults: [],
    latencyMs: 0,
    inFlight: 0,
    maxInFlight: 0,
    gate: undefined,
    takeViolations: () => [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const send = (
    res: http.ServerResponse,
    status: number,
    json: unknown,
    headers: Record<string, string> = {},
  ) => res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(json));
  let arrived = 0;
  const guard = new ContractGuard();
  guard.watch();
  fake.takeViolations = () => guard.takeViolations();
  const contract = new Contract("openai", ["openai"], [], { closedBody: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const bytes = Buffer.concat(chunks);
      const raw = bytes.toString("utf8");
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const method = req.method ?? "";
      const path = (req.url ?? "").split("?")[0]!;
      fake.requests.push({ method, path, auth: req.headers.authorization, body });
      const contractReq: ContractRequest = {
        method,
        path,
        query: new URL(req.url ?? "/", "http://fake").searchParams,
        headers: req.headers,
        body: bytes,
      };
      const checked = await guard.request(contract, contractReq);
      if (checked.refusal) return send(res, checked.refusal.status, checked.refusal.body);
      const valid: Operation[] = checked.valid ?? [];
      const answer = (status: number, json: unknown, headers?: Record<string, string>) => {
        send(res, status, json, headers);
        // Checked once sent: compiling a response schema the first time costs the client no time.
        if (valid.length > 0) guard.response(contract, valid, contractReq, status, json);
      };
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        const e = apiError(401, "Incorrect API key provided: sk-***.", null, "invalid_api_key");
        return send(res, e.status, e.body);
      }
      if (method === "GET" && path === "/v1/models") {
        if (options.modelsEndpoint === false) return send(res, 404, { detail: "Not Found" });
        return answer(200, {
          object: "list",
          data: fake.models.map((id) => ({
            id,
            object: "model",
            created: 1_760_000_000,
            owned_by: "system",
          })),
        });
      }
      fake.inFlight += 1;
      fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
      res.on("close", () => {
        fake.inFlight -= 1;
      });
      arrived += 1;
      if (fake.gate) await fake.gate({ n: arrived, body });
      if (fake.latencyMs > 0) await new Promise((r) => setTimeout(r, fake.latencyMs));
      const fault = fake.faults.shift();
      if (fault) {
        if ("raw" in fault)
          return void res.writeHead(fault.status, { "content-type": "text/plain" }).end(fault.raw);
        return send(res, fault.status, fault.body, fault.headers);
      }
      if (method === "POST" && (body === undefined || typeof body !== "object" || Array.isArray(body))) {
        const e = apiError(400, "We could not parse the JSON body of your request.", null, null);
        return send(res, e.status, e.body);
      }
      for (const route of routes) {
        const out = await route({ method, path, body }, fake);
        if (!out) continue;
        if ("bytes" in out)
          return void res
            .writeHead(out.status, {
              "content-type": out.contentType,
              "content-length": String(out.bytes.length),
            })
            .end(out.bytes);
        if ("json" in out) return answer(out.status, out.json);
        return send(res, out.status, out.body, out.headers);
      }
      const e = apiError(404, `Invalid URL (${method} ${path})`, null, null);
      return send(res, e.status, e.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
