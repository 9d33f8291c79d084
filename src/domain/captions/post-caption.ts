/**
 * The caption of a generated post (docs/operations.md "Captions of generated posts"):
 * - `assertCaptionArgument` checks a caption an agent passes to generate_carousel or approve_carousel: at
 *   most CAPTION_MAX_LENGTH characters (YouTube's description, the largest limit of any network in the rule
 *   table, src/providers/social/rules.ts; each destination's own limit is checked at publish_post /
 *   schedule_post), and no control character other than a newline.
 * - `writeGeneratedCaption` writes the caption of a generated post with the AI text provider (`postCaption`:
 *   hook line, value lines, call to action with the product link, hashtags) from the product, the brief and
 *   the slides' or video's copy, once: a post that already has a caption (the agent's own, or one written by
 *   an earlier attempt of the same render) keeps it and the provider is not called. Writing a caption costs
 *   no credits. The post records who wrote it (`caption_provider`: the provider's name, `local` for the
 *   offline stand-in, null for the agent's own). When the configured provider fails, the caller's run fails
 *   with its error, unless AI_FALLBACK=local: then the local provider writes it, recorded as `local`
 *   (../ai-fallback.ts).
 */
import type { AppContext } from "../../context.ts";
import { ToolError } from "../../errors.ts";
import { localAiText } from "../../providers/ai-text/local.ts";
import type { PostCaptionRequest } from "../../providers/ai-text/types.ts";
import { GenerationFailed, generateWithFallback, type Made, providerFailure } from "../ai-fallback.ts";

/** The longest caption an agent may pass, in characters (UTF-16 code units, as the schema's maxLength). */
export const CAPTION_MAX_LENGTH = 5000;

/** Control characters (C0, DEL, C1) other than `\n`, and the Unicode line and paragraph separators. */
const FORBIDDEN = /(?!\n)[\p{Cc}\u2028\u2029]/u;

/**
 * Checks an agent's caption argument at JSON pointer `path` (e.g. `/caption`).
 * @throws ToolError validation_failed naming the field and the rule (keyword `maxLength` with the limit and
 * the length, or `pattern` for a control character with its position); the caption itself is never echoed.
 */
export function assertCaptionArgument(caption: string, path = "/caption"): void {
  const field = path.replace(/^\//, "");
  if (caption.length > CAPTION_MAX_LENGTH) {
    throw ToolError.validation(
      `${field} must be at most ${CAPTION_MAX_LENGTH} characters (it has ${caption.length})`,
      { path, keyword: "maxLength", params: { limit: CAPTION_MAX_LENGTH, length: caption.length } },
    );
  }
  const bad = FORBIDDEN.exec(caption);
  if (bad) {
    const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    throw ToolError.validation(
      `${field} must not contain control characters other than newline (found ${code} at character ${bad.index + 1})`,
      { path, keyword: "pattern", params: { character: code, position: bad.index + 1 } },
    );
  }
}

/**
 * Writes the caption of post `postId` from `request` unless the post already has one, with who wrote it
 * (`caption_provider`). The stored text is the provider's, already bounded and cleaned by
 * `formatPostCaption`.
 * @returns the post's caption after the call (the existing one when there was one).
 * @throws GenerationFailed (see `generatedCaption`); the abort reason when `signal` is aborted.
 */
export async function writeGeneratedCaption(
  app: AppContext,
  postId: string,
  request: PostCaptionRequest,
  signal: AbortSignal | undefined,
): Promise<string | null> {
  const current = await app.db("posts").where({ id: postId }).first("caption");
  if (!current || current.caption !== null) return current?.caption ?? null;
  const caption = await generatedCaption(app, request, signal);
  // Conditional: an agent's caption or a concurrent writer's is never overwritten.
  await app
    .db("posts")
    .where({ id: postId })
    .whereNull("caption")
    .update({ caption: caption.value, caption_provider: caption.provider, updated_at: app.clock.now() });
  const after = await app.db("posts").where({ id: postId }).first("caption");
  return after?.caption ?? null;
}

/**
 * The configured provider's caption and its name; when the provider fails and AI_FALLBACK=local, the local
 * provider's, named `local`.
 * @throws GenerationFailed with the provider's safe reason (AI_FALLBACK=none); the abort reason.
 */
export async function generatedCaption(
  app: AppContext,
  request: PostCaptionRequest,
  signal: AbortSignal | undefined,
): Promise<Made<string>> {
  const s = signal ?? new AbortController().signal;
  const text = app.providers.text;
  try {
    return await generateWithFallback(
      app,
      "text",
      text.name,
      () => text.postCaption(request, s),
      () => localAiText.postCaption(request, s),
      s,
    );
  } catch (err) {
    if (s.aborted) throw err;
    throw new GenerationFailed(providerFailure("text", "the caption", err));
  }
}
