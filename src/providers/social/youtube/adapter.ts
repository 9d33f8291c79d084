/**
 * The live YouTube adapter (YouTube Data API v3 with Google OAuth): OAuth and the channel in ./oauth.ts,
 * the resumable upload and processing in ./publisher.ts (./upload.ts), counters in ./metrics.ts, the
 * per-account visibility and audience defaults in ./settings.ts. Registered in ../adapters.ts; used when
 * YOUTUBE_CLIENT_ID and YOUTUBE_CLIENT_SECRET (a Google Cloud OAuth client of type "Web application") are
 * configured.
 */
import type { AdapterFactory, NetworkAdapter } from "../network.ts";
import { youtubeMetrics } from "./metrics.ts";
import { youtubeOAuth } from "./oauth.ts";
import { youtubePublisher } from "./publisher.ts";
import { YOUTUBE_SETTING_FIELDS } from "./settings.ts";

export const youtubeAdapter: AdapterFactory = (credentials, deps): NetworkAdapter => {
  const api = { http: deps.http, now: deps.now };
  return {
    network: "youtube",
    mode: "live",
    oauth: youtubeOAuth(credentials, deps.http, deps.now),
    publisher: youtubePublisher(api),
    metrics: youtubeMetrics(api),
    async accountSettings() {
      return YOUTUBE_SETTING_FIELDS.map((f) => ({ ...f, options: [...f.options] }));
    },
  };
};
