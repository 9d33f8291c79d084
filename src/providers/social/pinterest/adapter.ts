/**
 * The live Pinterest adapter (API v5): OAuth in ./oauth.ts, publishing and reconcile in ./publisher.ts
 * (Pins from ./pin.ts, video uploads in ./upload.ts), counters in ./metrics.ts, removal in ./published.ts,
 * and the per-account board choice of /settings/social (./boards.ts). Registered in ../adapters.ts; used when
 * PINTEREST_CLIENT_ID and PINTEREST_CLIENT_SECRET (the Pinterest app id and secret) are configured.
 */
import { tableAdapter } from "../table-adapter.ts";
import { boardField, listBoards } from "./boards.ts";
import { pinterestMetrics } from "./metrics.ts";
import { pinterestOAuthParts } from "./oauth.ts";
import { pinterestRemover } from "./published.ts";
import { pinterestPublisher } from "./publisher.ts";
import { PINTEREST } from "./table.ts";

export const pinterestAdapter = tableAdapter(PINTEREST, (_credentials, deps) => ({
  oauth: pinterestOAuthParts(deps),
  publisher: pinterestPublisher(deps.http, deps.now),
  metrics: pinterestMetrics(deps.http, deps.now),
  remover: pinterestRemover(deps.http),
  async accountSettings(account, signal) {
    return [boardField(await listBoards(deps.http, account.tokens.accessToken, signal))];
  },
}));
