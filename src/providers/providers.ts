/**
 * Every boundary to the outside, built once from config (DESIGN.md section 1, providers/): AI text, AI image,
 * video, social networks, media storage and the guarded fetch. `buildProviders` runs in bootstrap
 * (src/bootstrap.ts) and the result hangs on the application context as `ctx.providers`; nothing else
 * selects or caches a provider. Tests swap one by passing `overrides` when they build a context
 * (test/helpers/app.ts `startTestApp({ providers })`), never by patching a module.
 */
import type { Config } from "../config.ts";
import { measureMethods, metricsEnabled } from "../observability/metrics.ts";
import { aiTextProvider } from "./ai-text/index.ts";
import type { AiTextProvider } from "./ai-text/types.ts";
import { aiImageProvider } from "./ai-image/index.ts";
import type { ImageProvider } from "./ai-image/types.ts";
import { type FetchedPage, guardedFetchHtml } from "./fetch/guarded-fetch.ts";
import { LIVE_ADAPTERS } from "./social/adapters.ts";
import { createSocialHttp, type SocialHttp } from "./social/http.ts";
import type { AdapterDeps, NetworkAdapter, NetworkRegistry } from "./social/network.ts";
import { sandboxAdapter } from "./social/sandbox/sandbox.ts";
import type { Network } from "./social/types.ts";
import { localDiskStorage, type MediaStorage } from "./storage.ts";
import { s3Storage } from "./storage-s3.ts";
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
  /**
   * Connect, publish and metrics adapters per network (live with credentials, else sandbox); the analytics
   * sync reads each account's counters through its adapter's `metrics`.
   */
  networks: NetworkRegistry;
  /**
   * The live adapters' outbound HTTP with the `SOCIAL_HTTP_OVERRIDE` rewrite (./social/http.ts); also used
   * for the connect flow's authorize redirect and the settings page's allowed form actions.
   */
  socialHttp: SocialHttp;
  storage: MediaStorage;
  fetch: PageFetcher;
}

/**
 * Builds the providers `config` selects; `overrides` replaces any of them (tests, or a caller that brings
 * its own adapter). @throws Error when a selected provider lacks a required setting.
 */
export function buildProviders(
  config: Config,
  overrides: Partial<Providers> = {},
  deps?: Omit<AdapterDeps, "publicBaseUrl" | "http">,
): Providers {
  const socialHttp = overrides.socialHttp ?? createSocialHttp(config.social.httpOverride);
  return {
    text: overrides.text ?? aiTextProvider(config),
    image: overrides.image ?? aiImageProvider(config),
    video: overrides.video ?? videoProvider(config),
    networks:
      overrides.networks ??
      networkRegistry(config, {
        publicBaseUrl: config.publicBaseUrl,
        sealer: deps?.sealer ?? unsealable,
        now: deps?.now ?? (() => new Date()),
        http: socialHttp,
        linkedinVersion: config.social.linkedinVersion,
        linkedinOrganizations: config.social.linkedinOrganizations,
      }),
    socialHttp,
    storage: overrides.storage ?? mediaStorage(config),
    fetch: overrides.fetch ?? {
      html: (url, options = {}) =>
        guardedFetchHtml(url, { allowLoopbackPort: config.fetchAllowLoopbackPort, signal: options.signal }),
    },
  };
}

/** The configured media storage: S3 when `MEDIA_STORAGE=s3`, else the local disk under `media.dir`. */
function mediaStorage(config: Config): MediaStorage {
  const s3 = config.media.s3;
  if (config.media.storage === "s3" && s3) {
    return s3Storage({ ...s3, tempDir: `${config.media.dir}/.tmp` });
  }
  return localDiskStorage(config.media.dir);
}

/**
 * `adapter` whose calls count their outbound HTTP under the network and the adapter operation (publish
 * step, reconcile, token exchange, metrics read...: src/observability/metrics.ts `measureMethods`, read by
 * ./social/http.ts). `adapter` itself while metrics are off.
 */
function measuredAdapter(adapter: NetworkAdapter): NetworkAdapter {
  if (!metricsEnabled()) return adapter;
  const n = adapter.network;
  return Object.assign(
    measureMethods(adapter, n, { accountSettings: "account_settings" }),
    {
      oauth: measureMethods(adapter.oauth, n, {
        exchangeCode: "oauth.exchange_code",
        refresh: "oauth.refresh",
        accounts: "oauth.accounts",
      }),
      publisher: measureMethods(adapter.publisher, n, {
        step: "publish.step",
        reconcile: "publish.reconcile",
        publishingLimit: "publish.limit",
      }),
    },
    adapter.metrics
      ? {
          metrics: measureMethods(adapter.metrics, n, {
            account: "metrics.account",
            post: "metrics.post",
            readPostMetricsBatch: "metrics.post_batch",
          }),
        }
      : {},
  );
}

/** A sealer for contexts built without one (migrations only): any use is an error. */
const unsealable: AdapterDeps["sealer"] = {
  seal() {
    throw new Error("no sealer: build providers with deps.sealer to connect or publish");
  },
  open() {
    throw new Error("no sealer: build providers with deps.sealer to connect or publish");
  },
};

/**
 * The adapter registry: a network's live adapter (./social/adapters.ts) when `{NETWORK}_CLIENT_ID` /
 * `_SECRET` are configured, else its sandbox connector. Adapters are built once per network and mode.
 */
export function networkRegistry(config: Config, deps: AdapterDeps): NetworkRegistry {
  const cache = new Map<string, NetworkAdapter>();
  const build = (network: Network, mode: "live" | "sandbox"): NetworkAdapter => {
    const key = `${network}:${mode}`;
    let a = cache.get(key);
    if (!a) {
      const factory = LIVE_ADAPTERS[network];
      const credentials = config.social.credentials[network];
      if (mode === "live") {
        if (!factory || !credentials)
          throw new Error(`${network} has no live adapter configured (${network.toUpperCase()}_CLIENT_ID)`);
        a = factory(credentials, deps);
      } else a = sandboxAdapter(network, deps);
      a = measuredAdapter(a);
      cache.set(key, a);
    }
    return a;
  };
  return {
    adapter: (network) =>
      build(network, LIVE_ADAPTERS[network] && config.social.credentials[network] ? "live" : "sandbox"),
    forAccount: (network, mode) => build(network, mode),
  };
}
