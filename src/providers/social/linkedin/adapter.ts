/**
 * The live LinkedIn adapter (versioned REST API, Community Management / Posts API): OAuth and the author
 * picker in ./oauth.ts, publishing and reconcile in ./publisher.ts (uploads in ./images.ts, ./videos.ts),
 * counters in ./metrics.ts, the first comment and removal in ./published.ts, calls and errors in ./api.ts.
 * The organization page scopes are asked only with `deps.linkedinOrganizations` (config
 * `LINKEDIN_ORGANIZATIONS`). Every REST call sends `LinkedIn-Version` from `deps.linkedinVersion` (config
 * `LINKEDIN_VERSION`, default `DEFAULT_LINKEDIN_VERSION`). Registered in ../adapters.ts; used when
 * LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET are configured.
 */
import { DEFAULT_LINKEDIN_VERSION } from "../../../config/index.ts";
import { tableAdapter } from "../table-adapter.ts";
import type { LinkedInClient } from "./api.ts";
import { linkedinMetrics } from "./metrics.ts";
import { linkedinOAuthParts } from "./oauth.ts";
import { linkedinComments, linkedinRemover } from "./published.ts";
import { linkedinPublisher } from "./publisher.ts";
import { LINKEDIN, linkedinTable } from "./table.ts";

export const linkedinAdapter = tableAdapter(LINKEDIN, (_credentials, deps) => {
  const client: LinkedInClient = {
    http: deps.http,
    version: deps.linkedinVersion ?? DEFAULT_LINKEDIN_VERSION,
    now: deps.now,
  };
  return {
    table: linkedinTable(deps.linkedinOrganizations === true),
    oauth: linkedinOAuthParts(client),
    publisher: linkedinPublisher(client),
    metrics: linkedinMetrics(client),
    comments: linkedinComments(client),
    remover: linkedinRemover(client),
  };
});
