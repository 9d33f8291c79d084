/**
 * A strict fake of OpenAI's Chat Completions API, `POST /v1/chat/completions`, written from the API
 * reference as summarised in docs/providers.md ("Provider facts", checked 2026-11-25):
 * - only the reference's parameters are taken (anything else is 400 `unknown_parameter`); `model` and
 *   `messages` are required; a model not in `models` is 404 `model_not_found`;
 * - `response_format` is `{type: "text"}`, `{type: "json_object"}` or `{type: "json_schema", json_schema:
 *   {name, description?, schema?, strict?}}` with `name` of 1 to 64 letters, digits, `_` or `-`; a strict
 *   schema needs `additionalProperties: false` on every object and every property listed in `required`
 *   (400, `param: "response_format"`, the API's wording);
 * - models in `fixedTemperature` (reasoning models) refuse a `temperature` other than 1 with 400
 *   `unsupported_value`, `param: "temperature"`;
 * - shared behaviour (models list, 401, scripted faults, latency): ./openai-api.ts.
 * The answer's `content` is `reply(request)` as JSON text (default: a value of the requested schema).
 */
import {
  apiError,
  type FakeOptions,
  missingParameter,
  modelCheck,
  type OpenAiFake,
  startOpenAiFake,
  unknownKey,
} from "./openai-api.ts";

export interface FakeChat extends OpenAiFake {
  /** The assistant's answer for a request (its parsed body): an object sent as JSON text, or a string. */
  reply: (body: any) => unknown;
}

/** Models the fake lists by default. */
export const DEFAULT_CHAT_MODELS = ["gpt-5-mini", "gpt-4.1-mini", "gpt-4o-mini"];

const PARAMS = [
  "messages",
  "model",
  "audio",
  "frequency_penalty",
  "function_call",
  "functions",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "metadata",
  "modalities",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "prompt_cache_key",
  "reasoning_effort",
  "response_format",
  "safety_identifier",
  "seed",
  "service_tier",
  "stop",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "user",
  "verbosity",
  "web_search_options",
];

/** The first strict-mode violation in `schema` (OpenAI's wording), or undefined. */
export function strictSchemaProblem(schema: any, context: string[] = []): string | undefined {
  if (!schema || typeof schema !== "object") return undefined;
  const where = `In context=(${context.map((c) => `'${c}'`).join(", ")})`;
  if (schema.type === "object" || schema.properties) {
    if (schema.additionalProperties !== false)
      return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
    const keys = Object.keys(schema.properties ?? {});
    const required: unknown[] = Array.isArray(schema.required) ? schema.required : [];
    const missing = keys.find((k) => !required.includes(k));
    if (missing !== undefined)
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    for (const k of keys) {
      const p = strictSchemaProblem(schema.properties[k], [...context, "properties", k]);
      if (p) return p;
    }
  }
  if (schema.items) return strictSchemaProblem(schema.items, [...context, "items"]);
  return undefined;
}

/** A value of `schema` (strings "text", arrays of 3). */
function sample(schema: any): unknown {
  if (schema?.type === "object")
    return Object.fromEntries(
      Object.keys(schema.properties ?? {}).map((k) => [k, sample(schema.properties[k])]),
    );
  if (schema?.type === "array")
    return [1, 2, 3].map((i) => (schema.items?.type === "string" ? `text ${i}` : sample(schema.items)));
  if (schema?.type === "number" || schema?.type === "integer") return 1;
  if (schema?.type === "boolean") return true;
  return "text";
}

/** Starts the fake. */
export async function startFakeChat(
  options: FakeOptions & { fixedTemperature?: string[] } = {},
): Promise<FakeChat> {
  const fixed = new Set(options.fixedTemperature ?? ["gpt-5-mini"]);
  const fake = (await startOpenAiFake(options, DEFAULT_CHAT_MODELS, [
    ({ method, path, body }, f) => {
      if (method !== "POST" || path !== "/v1/chat/completions") return undefined;
      const bad = modelCheck(body, f) ?? unknownKey(body, PARAMS);
      if (bad) return bad;
      if (!Array.isArray(body.messages) || body.messages.length === 0) return missingParameter("messages");
      if (body.temperature !== undefined && fixed.has(body.model) && body.temperature !== 1)
        return apiError(
          400,
          `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
          "temperature",
          "unsupported_value",
        );
      const format = body.response_format;
      // JSON mode needs the word "json" somewhere in the messages ("Structured Outputs" guide, JSON mode:
      // "the string 'JSON' must appear somewhere in the context"), else 400 on `messages`.
      if (
        format?.type === "json_object" &&
        !body.messages.some((m: { content?: unknown }) => /json/i.test(JSON.stringify(m?.content ?? "")))
      )
        return apiError(
          400,
          "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
          "messages",
          null,
        );
      if (format !== undefined) {
        if (!["text", "json_object", "json_schema"].includes(format?.type))
          return apiError(
            400,
            `Invalid value: '${format?.type}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
            "response_format.type",
            "invalid_value",
          );
        if (format.type === "json_schema") {
          const js = format.json_schema;
          const extra =
            js && Object.keys(js).find((k) => !["name", "description", "schema", "strict"].includes(k));
          if (extra)
            return apiError(
              400,
              `Unknown parameter: 'response_format.json_schema.${extra}'.`,
              `response_format.json_schema.${extra}`,
              "unknown_parameter",
            );
          if (typeof js?.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(js.name))
            return apiError(
              400,
              "Invalid 'response_format.json_schema.name': string does not match pattern.",
              "response_format.json_schema.name",
              "invalid_value",
            );
          const problem = js.strict === true ? strictSchemaProblem(js.schema) : undefined;
          if (problem)
            return apiError(
              400,
              `Invalid schema for response_format '${js.name}': ${problem}`,
              "response_format",
              null,
            );
        }
      }
      const out = chat.reply(body);
      return {
        status: 200,
        json: {
          id: `chatcmpl-${f.requests.length}`,
          object: "chat.completion",
          created: 1_760_000_000,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                // `content` is always there: a string, or null when there is nothing to say.
                content: typeof out === "string" ? out : (JSON.stringify(out) ?? null),
                refusal: null,
              },
              finish_reason: "stop",
              logprobs: null,
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        },
      };
    },
  ])) as FakeChat;
  const chat = fake;
  fake.reply = (body) => sample(body?.response_format?.json_schema?.schema);
  return fake;
}
