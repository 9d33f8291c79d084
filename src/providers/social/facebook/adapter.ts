/**
 * The live Facebook Pages adapter: Facebook Login with a Page picker in ./oauth.ts (one account per Page,
 * Page tokens), publishing and reconcile in ./publisher.ts, the analytics counters in ./metrics.ts, the
 * first comment and removal in ./published.ts.
 * Registered in ../adapters.ts; used when FACEBOOK_CLIENT_ID and FACEBOOK_CLIENT_SECRET (the Meta app id and
 * secret) are configured.
 */
import { tableAdapter } from "../table-adapter.ts";
import { facebookMetrics } from "./metrics.ts";
import { facebookOAuthParts } from "./oauth.ts";
import { facebookPublisher } from "./publisher.ts";
import { facebookComments, facebookRemover } from "./published.ts";
import { FACEBOOK } from "./table.ts";

export const facebookAdapter = tableAdapter(FACEBOOK, (credentials, deps) => ({
  oauth: facebookOAuthParts(credentials, deps),
  publisher: facebookPublisher(deps.http, deps.now),
  metrics: facebookMetrics(deps.http),
  comments: facebookComments(deps.http),
  remover: facebookRemover(deps.http),
}));
