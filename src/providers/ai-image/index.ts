/**
 * Selection of the AI image provider for an application context. The local provider is the default;
 * `useImageProvider` binds another implementation (a real adapter, or a failing one at the boundary in tests).
 */
import type { AppContext } from "../../context.ts";
import { localImageProvider } from "./local.ts";
import type { ImageProvider } from "./types.ts";

const bound = new WeakMap<AppContext, ImageProvider>();
const local = localImageProvider();

/** The image provider of `app` (local unless another was bound). */
export function imageProvider(app: AppContext): ImageProvider {
  return bound.get(app) ?? local;
}

/** Binds `provider` to `app` for the rest of its life. */
export function useImageProvider(app: AppContext, provider: ImageProvider): void {
  bound.set(app, provider);
}
