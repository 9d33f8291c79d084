/** Selection of the video provider for an application context (local by default). */
import type { AppContext } from "../../context.ts";
import { localVideoProvider } from "./local.ts";
import type { VideoProvider } from "./types.ts";

const bound = new WeakMap<AppContext, VideoProvider>();
const local = localVideoProvider();

/** The video provider of `app`. */
export function videoProvider(app: AppContext): VideoProvider {
  return bound.get(app) ?? local;
}

/** Binds `provider` to `app`. */
export function useVideoProvider(app: AppContext, provider: VideoProvider): void {
  bound.set(app, provider);
}
