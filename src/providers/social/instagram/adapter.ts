/**
 * The live Instagram adapter (Instagram API with Instagram Login): OAuth in ./oauth.ts, publishing and
 * reconcile in ./publisher.ts, the analytics counters in ./metrics.ts. Registered in ../adapters.ts; used
 * when INSTAGRAM_CLIENT_ID and INSTAGRAM_CLIENT_SECRET are configured (the Instagram app id and secret of
 * the Meta app).
 */
import type { AdapterFactory, NetworkAdapter } from "../network.ts";
import { instagramMetrics } from "./metrics.ts";
import { instagramOAuth } from "./oauth.ts";
import { instagramPublisher } from "./publisher.ts";

export const instagramAdapter: AdapterFactory = (credentials, deps): NetworkAdapter => ({
  network: "instagram",
  mode: "live",
  oauth: instagramOAuth(credentials, deps.http, deps.now),
  publisher: instagramPublisher(deps.http, deps.now),
  metrics: instagramMetrics(deps.http),
});
