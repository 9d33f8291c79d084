/**
 * Every boundary to the outside, built once from config (DESIGN.md section 1, providers/): AI text, AI image,
 * video, social networks, media storage and the guarded fetch. `buildProviders` runs in bootstrap
 * (src/bootstrap.ts) and the result hangs on the application context as `ctx.providers`; nothing else
 * selects or caches a provider. Tests swap one by passing `overrides` when they build a context
 * (test/helpers/app.ts `startTestApp({ providers })`), never by patching a module.
 */
import type { Config } from "../config/index.ts";
import { measureMethods, metricsEnabled } from "../observability/metrics.ts";
import { aiTextProvider } from "./ai-text/index.ts";
import type { AiTextProvider } from "./ai-text/types.ts";
import { aiImageProvider } from "./ai-image/index.ts";
import type { ImageProvider } from "./ai-image/types.ts";
import {
  type FetchedBody,
  type FetchedPage,
  guardedFetchHtml,
  guardedFetchImage,
} from "./fetch/guarded-fetch.ts";
import { LIVE_ADAPTERS } from "./social/adapters.ts";
import { createSocialHttp, type SocialHttp } from "./social/http.ts";
import type { AdapterDeps, NetworkAdapter, NetworkRegistry } from "./social/network.ts";
import { sandboxAdapter } from "./social/sandbox/sandbox.ts";
import type { Network } from "./social/types.ts";
import { localDiskStorage, type MediaStorage } from "./storage.ts";
import { s3Storage } from "./storage-s3.ts";
import { videoProvider } from "./video/index.ts";
import type { VideoProvider } from "./video/types.ts";

/**
 * The guarded fetch of product pages and the images they name (src/providers/fetch/guarded-fetch.ts) with
 * the configured policy.
 */
export interface PageFetcher {
  /** @throws GuardedFetchError when the URL, an address, a redirect, the type or the size is refused. */
  html(url: string, options?: { signal?: AbortSignal | undefined }): Promise<FetchedPage>;
  /**
   * A JPEG, PNG or WEBP image of at most `config.media.maxImageBytes`.
   * @throws GuardedFetchError as `html`.
   */
  image(url: string, options?: { signal?: AbortSignal | undefined }): Promise<FetchedBody>;
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
      image: (url, options = {}) =>
        guardedFetchImage(url, {
          allowLoopbackPort: config.fetchAllowLoopbackPort,
          maxBytes: config.media.maxImageBytes,
          signal: options.signal,
        }),
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
 * How `network` runs on this server: `live` with `{NETWORK}_CLIENT_ID` / `_SECRET` and a live adapter,
 * else `sandbox` when the sandbox connector may run for it (config `social.sandboxNetworks`:
 * SOCIAL_SANDBOX_NETWORKS, by default every network outside production and none in production), else
 * `unavailable` (nothing connects or publishes there; DESIGN.md section 5).
 */
export function networkMode(config: Config, network: Network): "live" | "sandbox" | "unavailable" {
  if (LIVE_ADAPTERS[network] && config.social.credentials[network]) return "live";
  return sandboxAllowed(config, network) ? "sandbox" : "unavailable";
}

/** True when the sandbox connector may run for `network` (config `social.sandboxNetworks`). */
export function sandboxAllowed(config: Config, network: Network): boolean {
  return (config.social.sandboxNetworks as readonly string[]).includes(network);
}

/** A network this server cannot use (no credentials, no sandbox); `message` is safe to show and store. */
export class NetworkUnavailableError extends Error {
  constructor(network: Network, mode: "live" | "sandbox") {
    const up = network.toUpperCase();
    super(
      mode === "live"
        ? `${network} is not available on this server: ${up}_CLIENT_ID and ${up}_CLIENT_SECRET are not configured`
        : `${network} is not available on this server: ${up}_CLIENT_ID and ${up}_CLIENT_SECRET are not configured and SOCIAL_SANDBOX_NETWORKS does not name it`,
    );
    this.name = "NetworkUnavailableError";
  }
}

/**
 * The adapter registry: a network's live adapter (./social/adapters.ts) when `{NETWORK}_CLIENT_ID` /
 * `_SECRET` are configured, else its sandbox connector when `networkMode` allows it. Adapters are built
 * once per network and mode. @throws NetworkUnavailableError for a network (or an account's mode) this
 * server cannot use.
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
        if (!factory || !credentials) throw new NetworkUnavailableError(network, "live");
        a = factory(credentials, deps);
      } else if (sandboxAllowed(config, network)) a = sandboxAdapter(network, deps);
      else throw new NetworkUnavailableError(network, "sandbox");
      a = measuredAdapter(a);
      cache.set(key, a);
    }
    return a;
  };
  return {
    adapter: (network) => build(network, networkMode(config, network) === "live" ? "live" : "sandbox"),
    forAccount: (network, mode) => build(network, mode),
  };
}
