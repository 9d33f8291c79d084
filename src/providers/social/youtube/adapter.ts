/**
 * The live YouTube adapter (YouTube Data API v3 with Google OAuth): OAuth and the channel in ./oauth.ts,
 * the resumable upload and processing in ./publisher.ts (./upload.ts), counters in ./metrics.ts, the
 * per-account visibility and audience defaults in ./settings.ts, the first comment and removal in
 * ./published.ts. Registered in ../adapters.ts; used when YOUTUBE_CLIENT_ID and YOUTUBE_CLIENT_SECRET (a
 * Google Cloud OAuth client of type "Web application") are configured.
 */
import { tableAdapter } from "../table-adapter.ts";
import { youtubeMetrics } from "./metrics.ts";
import { youtubeOAuthParts } from "./oauth.ts";
import { youtubeComments, youtubeRemover } from "./published.ts";
import { youtubePublisher } from "./publisher.ts";
import { YOUTUBE_SETTING_FIELDS } from "./settings.ts";
import { YOUTUBE } from "./table.ts";

export const youtubeAdapter = tableAdapter(YOUTUBE, (_credentials, deps) => ({
  oauth: youtubeOAuthParts(deps),
  publisher: youtubePublisher(deps),
  metrics: youtubeMetrics(deps),
  comments: youtubeComments(deps),
  remover: youtubeRemover(deps),
  async accountSettings() {
    return YOUTUBE_SETTING_FIELDS.map((f) => ({ ...f, options: [...f.options] }));
  },
}));
