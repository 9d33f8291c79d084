/**
 * Every boundary to the outside, built once from config (DESIGN.md section 1, providers/): AI text, AI image,
 * video, social networks, media storage and the guarded fetch. `buildProviders` runs in bootstrap
 * (src/bootstrap.ts) and the result hangs on the application context as `ctx.providers`; nothing else
 * selects or caches a provider. Tests swap one by passing `overrides` when they build a context
 * (test/helpers/app.ts `startTestApp({ providers })`), never by patching a module.
 */
import type { Config } from "../config.ts";
import { aiTextProvider } from "./ai-text/index.ts";
import type { AiTextProvider } from "./ai-text/types.ts";
import { localImageProvider } from "./ai-image/local.ts";
import type { ImageProvider } from "./ai-image/types.ts";
import { type FetchedPage, guardedFetchHtml } from "./fetch/guarded-fetch.ts";
import { localSocialProvider } from "./social/local.ts";
import type { SocialProvider } from "./social/types.ts";
import { localDiskStorage, type MediaStorage } from "./storage.ts";
import { videoProvider } from "./video/index.ts";
import type { VideoProvider } from "./video/types.ts";

/** The guarded fetch of product pages (src/providers/fetch/guarded-fetch.ts) with the configured policy. */
export interface PageFetcher {
  /** @throws GuardedFetchError when the URL, an address, a redirect, the type or the size is refused. */
  html(url: string, options?: { signal?: AbortSignal | undefined }): Promise<FetchedPage>;
}

export interface Providers {
  text: AiTextProvider;
  image: ImageProvider;
  video: VideoProvider;
  social: SocialProvider;
  storage: MediaStorage;
  fetch: PageFetcher;
}

/**
 * Builds the providers `config` selects; `overrides` replaces any of them (tests, or a caller that brings
 * its own adapter). @throws Error when a selected provider lacks a required setting.
 */
export function buildProviders(config: Config, overrides: Partial<Providers> = {}): Providers {
  return {
    text: overrides.text ?? aiTextProvider(config),
    image: overrides.image ?? localImageProvider(),
    video: overrides.video ?? videoProvider(config),
    social: overrides.social ?? localSocialProvider(),
    storage: overrides.storage ?? localDiskStorage(config.media.dir),
    fetch: overrides.fetch ?? {
      html: (url, options = {}) =>
        guardedFetchHtml(url, { allowLoopbackPort: config.fetchAllowLoopbackPort, signal: options.signal }),
    },
  };
}
