/**
 * The live Instagram adapter (Instagram API with Instagram Login): OAuth in ./oauth.ts, publishing and
 * reconcile in ./publisher.ts, the analytics counters in ./metrics.ts, the first comment in ./published.ts
 * (no removal: the content publishing API has no delete). Registered in ../adapters.ts; used when
 * INSTAGRAM_CLIENT_ID and INSTAGRAM_CLIENT_SECRET are configured (the Instagram app id and secret of the
 * Meta app).
 */
import { tableAdapter } from "../table-adapter.ts";
import { instagramMetrics } from "./metrics.ts";
import { instagramOAuthParts } from "./oauth.ts";
import { instagramComments } from "./published.ts";
import { instagramPublisher } from "./publisher.ts";
import { INSTAGRAM } from "./table.ts";

export const instagramAdapter = tableAdapter(INSTAGRAM, (credentials, deps) => ({
  oauth: instagramOAuthParts(credentials, deps),
  publisher: instagramPublisher(deps.http, deps.now),
  metrics: instagramMetrics(deps.http),
  comments: instagramComments(deps.http),
}));
