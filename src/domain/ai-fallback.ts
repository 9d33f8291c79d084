/**
 * Generated content is never silently made up by a stand-in (DESIGN.md section 1: offline stand-ins say
 * what they are in every output). A generation asks the configured AI text or image provider; when that
 * provider fails:
 * - `AI_FALLBACK=none` (the default): the error stands and the run fails with it (the caller refunds by
 *   its usual rule);
 * - `AI_FALLBACK=local`: the offline local provider writes or draws that part instead, and the result says
 *   so (`provider: "local"`), which the caller stores with the content (the slide's `copy_provider` /
 *   `image_provider`, the post's `caption_provider`, a video run's `video.provider`) for get_carousel,
 *   get_post, get_automation_run, the approval page and the views.
 * An abort (deadline, shutdown) is never replaced. The provider's own error is logged by class and code only.
 */
import type { AppContext } from "../context.ts";
import { ToolError } from "../errors.ts";
import { logError } from "../log.ts";

/**
 * A generation that failed at the AI provider (AI_FALLBACK=none, or the local provider failed too):
 * `reason` is safe to store and show (`providerFailure`); the caller fails its run with it.
 */
export class GenerationFailed extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
    this.name = "GenerationFailed";
  }
}

/** Who made a piece of generated content: a provider's name (`openai-compatible`) or `local`. */
export type MadeBy = string;

/** The provider name of the offline stand-ins (src/providers/ai-text/local.ts, ai-image/local.ts). */
export const LOCAL: MadeBy = "local";

/** Generated content and who made it. */
export interface Made<T> {
  value: T;
  provider: MadeBy;
}

/**
 * Runs `generate` on the configured provider named `provider` (`kind` says which: text or image); on its
 * failure runs `local` when AI_FALLBACK=local and the provider is not already the local one.
 * @returns the output and who made it. @throws the provider's error (AI_FALLBACK=none, or the local
 * provider itself failed), or the abort reason when `signal` is aborted.
 */
export async function generateWithFallback<T>(
  app: AppContext,
  kind: "text" | "image",
  provider: MadeBy,
  generate: () => Promise<T>,
  local: () => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<Made<T>> {
  try {
    return { value: await generate(), provider };
  } catch (err) {
    if (signal?.aborted || provider === LOCAL || app.config.aiFallback !== "local") throw err;
    logError(
      app.log,
      err,
      { provider, kind, fallback: LOCAL },
      `the AI ${kind} provider failed; AI_FALLBACK=local: the local provider made this part instead`,
    );
    return { value: await local(), provider: LOCAL };
  }
}

/**
 * Who made a piece made of several generated parts (a slide: copy and image; a video: frames, hook and
 * clip): `local` when the stand-in made any of them, else the first provider named; null when nothing in it
 * was generated (stored artwork, the product's own photos, a configured hook).
 */
export function madeByAll(parts: ReadonlyArray<MadeBy | null | undefined>): MadeBy | null {
  const named = parts.filter((p): p is MadeBy => typeof p === "string" && p.length > 0);
  if (named.includes(LOCAL)) return LOCAL;
  return named[0] ?? null;
}

/**
 * A safe sentence for a generation that failed at the AI provider: the provider's own message when it is a
 * ToolError (built from the status, `param` and `code` only: src/providers/openai-http.ts) or carries a
 * safe `reason` (ImageGenerationError, VideoRenderError), else a generic one. Never provider text.
 */
export function providerFailure(kind: "text" | "image", what: string, err: unknown): string {
  const reason =
    err instanceof ToolError
      ? err.message
      : typeof (err as { reason?: unknown })?.reason === "string"
        ? String((err as { reason: string }).reason)
        : `the AI ${kind} provider failed`;
  return `the AI ${kind} provider could not ${kind === "text" ? "write" : "make"} ${what} (${reason.slice(0, 200)})`;
}
