/**
 * The live X adapter (X API v2): OAuth 2.0 with PKCE in ./oauth.ts, media upload in ./media.ts, posting
 * and reconcile in ./publisher.ts, counters in ./metrics.ts, the first comment (a reply) and removal in
 * ./published.ts, errors in ./api.ts. Registered in
 * ../adapters.ts; used when X_CLIENT_ID and X_CLIENT_SECRET (the app's OAuth 2.0 client id and secret)
 * are configured.
 */
import { tableAdapter } from "../table-adapter.ts";
import { xMetrics } from "./metrics.ts";
import { xOAuthParts } from "./oauth.ts";
import { xPublisher } from "./publisher.ts";
import { xComments, xRemover } from "./published.ts";
import { X } from "./table.ts";

export const xAdapter = tableAdapter(X, (_credentials, deps) => ({
  oauth: xOAuthParts(deps),
  publisher: xPublisher(deps.http, deps.now),
  metrics: xMetrics(deps.http, deps.now),
  comments: xComments(deps.http, deps.now),
  remover: xRemover(deps.http, deps.now),
}));
