/**
 * A live adapter from its network's table (./network-table.ts) and the parts the table cannot describe:
 * the OAuth flow is the table's (./oauth-flow.ts `tableOAuth`), the network and mode come from the table,
 * and the network's own modules give the publisher, the metrics reader, the rest of its OAuth (the accounts
 * behind a token), its per-account settings, and what it does with a published post (its first comment,
 * its removal: ./published-post.ts).
 */
import type {
  AdapterDeps,
  AdapterFactory,
  ClientCredentials,
  NetworkAdapter,
  NetworkMetrics,
  NetworkPublisher,
} from "./network.ts";
import type { NetworkTable } from "./network-table.ts";
import { type OAuthParts, tableOAuth } from "./oauth-flow.ts";

/** What a network's own modules add to its table. */
export interface AdapterParts {
  oauth: OAuthParts;
  publisher: NetworkPublisher;
  metrics?: NetworkMetrics | undefined;
  accountSettings?: NetworkAdapter["accountSettings"];
  comments?: NetworkAdapter["comments"];
  remover?: NetworkAdapter["remover"];
  /** The table this app uses when it depends on the configuration (LinkedIn's organization scopes). */
  table?: NetworkTable | undefined;
}

/** The `AdapterFactory` of `table`'s network: a live adapter with the table's OAuth and `parts`. */
export function tableAdapter(
  table: NetworkTable,
  parts: (credentials: ClientCredentials, deps: AdapterDeps) => AdapterParts,
): AdapterFactory {
  return (credentials, deps) => {
    const p = parts(credentials, deps);
    const t = p.table ?? table;
    return {
      network: t.network,
      mode: "live",
      oauth: tableOAuth(t, credentials, deps, p.oauth),
      publisher: p.publisher,
      metrics: p.metrics,
      ...(p.accountSettings ? { accountSettings: p.accountSettings } : {}),
      ...(p.comments ? { comments: p.comments } : {}),
      ...(p.remover ? { remover: p.remover } : {}),
    };
  };
}
