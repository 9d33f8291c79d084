/**
 * The live Facebook Pages adapter: Facebook Login with a Page picker in ./oauth.ts (one account per Page,
 * Page tokens), publishing and reconcile in ./publisher.ts, the analytics counters in ./metrics.ts.
 * Registered in ../adapters.ts; used when FACEBOOK_CLIENT_ID and FACEBOOK_CLIENT_SECRET (the Meta app id and
 * secret) are configured.
 */
import type { AdapterFactory, NetworkAdapter } from "../network.ts";
import { facebookMetrics } from "./metrics.ts";
import { facebookOAuth } from "./oauth.ts";
import { facebookPublisher } from "./publisher.ts";

export const facebookAdapter: AdapterFactory = (credentials, deps): NetworkAdapter => ({
  network: "facebook",
  mode: "live",
  oauth: facebookOAuth(credentials, deps.http, deps.now),
  publisher: facebookPublisher(deps.http, deps.now),
  metrics: facebookMetrics(deps.http),
});
