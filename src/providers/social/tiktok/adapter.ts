/**
 * The live TikTok adapter (Login Kit + Content Posting API, Direct Post): OAuth in ./oauth.ts, publishing and
 * reconcile in ./publisher.ts, the creator options chosen on /review in ./options.ts, creator_info in
 * ./creator-info.ts, the analytics counters in ./metrics.ts. Registered in ../adapters.ts; used when
 * TIKTOK_CLIENT_ID (TikTok's client key) and TIKTOK_CLIENT_SECRET are configured.
 */
import { tableAdapter } from "../table-adapter.ts";
import { tiktokMetrics } from "./metrics.ts";
import { tiktokOAuthParts } from "./oauth.ts";
import { tiktokPublisher } from "./publisher.ts";
import { TIKTOK } from "./table.ts";

export const tiktokAdapter = tableAdapter(TIKTOK, (_credentials, deps) => ({
  oauth: tiktokOAuthParts(deps),
  publisher: tiktokPublisher(deps.http, deps.now),
  metrics: tiktokMetrics(deps.http),
}));
