/**
 * The social networks (docs/social.md, docs/network-adapters.md): each network's app credentials, which
 * networks may run their offline sandbox connector, LinkedIn's API version and organization scopes, the
 * delivery engine's lease and loop, and the test hooks that send outbound traffic to local fakes
 * (docs/social.md "Testing against fakes").
 */
import Type from "typebox";
import {
  Bool,
  type ConfigArea,
  ConfigError,
  type EnvReader,
  Int,
  isLoopbackHost,
  Str,
  stripSlash,
} from "./env.ts";

/** The `LinkedIn-Version` (YYYYMM) used when `LINKEDIN_VERSION` is not set. */
export const DEFAULT_LINKEDIN_VERSION = "202610";

/** The networks with `{NETWORK}_CLIENT_ID` / `{NETWORK}_CLIENT_SECRET` settings (same list as providers/social/types.ts). */
export const SOCIAL_CREDENTIAL_NETWORKS = [
  "instagram",
  "tiktok",
  "facebook",
  "youtube",
  "linkedin",
  "pinterest",
  "x",
] as const;

type Network = (typeof SOCIAL_CREDENTIAL_NETWORKS)[number];

const CREDENTIALS =
  'the app credentials of a social network, set together; register `{PUBLIC_BASE_URL}/settings/social/callback/{network}` as the redirect URI. A network without them uses its **sandbox** connector when `SOCIAL_SANDBOX_NETWORKS` allows it, else it is unavailable (section "Social networks")';

function credentialSchema() {
  const out: Record<string, ReturnType<typeof Str>> = {};
  for (const n of SOCIAL_CREDENTIAL_NETWORKS) {
    const name = n.toUpperCase();
    out[`${name}_CLIENT_ID`] = Str(
      { minLength: 1, maxLength: 512 },
      { description: CREDENTIALS, defaultText: "unset" },
    );
    out[`${name}_CLIENT_SECRET`] = Str(
      { minLength: 1, maxLength: 1024 },
      { description: CREDENTIALS, defaultText: "unset" },
    );
  }
  return out;
}

export const NetworksEnv = Type.Object({
  ...credentialSchema(),
  SOCIAL_SANDBOX_NETWORKS: Str(
    { maxLength: 200 },
    {
      description:
        "comma-separated networks (`instagram,tiktok,...`) whose offline sandbox connector may run: for a network without credentials, and for accounts connected in sandbox mode. In production (`NODE_ENV=production`) a network without credentials that this list does not name is **unavailable** (no Connect button, listed as unavailable on `/settings/social` and in the start banner), never a sandbox by accident",
      defaultText: "every network outside production; none in production",
    },
  ),
  LINKEDIN_VERSION: Str(
    { pattern: "^20[0-9]{2}(0[1-9]|1[0-2])$" },
    {
      description: "the `LinkedIn-Version` header (YYYYMM) of every LinkedIn REST call",
      defaultText: DEFAULT_LINKEDIN_VERSION,
    },
  ),
  LINKEDIN_ORGANIZATIONS: Bool({
    description:
      "`true`: also ask for the organization page scopes (`w_organization_social`, `r_organization_social`, `rw_organization_admin`) to post as the member's pages; only for an app granted LinkedIn's Community Management API product (LinkedIn refuses the whole consent, `unauthorized_scope_error`, when the app lacks a requested scope)",
    defaultText: "false",
  }),
  DELIVERY_LEASE_SECONDS: Int(300, 10, 3600, {
    description:
      "worker: how long one delivery step (an upload chunk run, a status poll, a create) may hold its delivery; a worker that died mid-step is taken over after this, and the next step asks the network before creating anything again (docs/social.md)",
  }),
  DELIVERY_POLL_SECONDS: Int(5, 1, 60, {
    description:
      'worker: every worker steps due deliveries continuously, one lane per network; when nothing is due it waits this long before looking again, so a post is picked up at most this late after its time (docs/operations.md "The delivery loop")',
  }),
  DELIVERY_NETWORK_CONCURRENCY: Int(8, 1, 64, {
    description:
      'worker: delivery steps each worker runs at once on one network, never two of one account at once on any worker; a network\'s rate-limit answer pauses only that network (its app budget) or that account (docs/operations.md "The delivery loop")',
  }),
  SOCIAL_HTTP_OVERRIDE: Str(
    { pattern: "^https?://[^/?#]+/?$" },
    {
      description:
        "**testing only**: `http://127.0.0.1:PORT` sends every request of the network adapters for `https://{host}{path}` to `http://127.0.0.1:PORT/{host}{path}` (same method, headers, body), and the browser's authorize redirect likewise, so provider-shaped fakes (`test/fakes/`) can stand in for the networks; upload URLs a network returns are used as returned. Accepted only with a loopback target (`127.0.0.1`, `[::1]`, `localhost`) while `PUBLIC_BASE_URL` is a loopback address, never when `NODE_ENV=production`; startup logs a warning when set",
      defaultText: "unset",
    },
  ),
  FETCH_ALLOW_LOOPBACK_PORT: Str(
    { pattern: "^[0-9]{1,5}$" },
    {
      description:
        "test only: one loopback port the guarded fetch may reach; accepted only while `PUBLIC_BASE_URL` is a loopback address, never in production; start-up logs a warning",
      defaultText: "unset",
    },
  ),
});

export interface NetworksConfig {
  social: {
    /**
     * Test-only `SOCIAL_HTTP_OVERRIDE` (http://host:port): network adapters send `https://{host}{path}` to
     * `{override}/{host}{path}` (src/providers/social/http.ts). Accepted only with a loopback target while
     * PUBLIC_BASE_URL is loopback, never in production.
     */
    httpOverride: string | undefined;
    /**
     * `{NETWORK}_CLIENT_ID` / `_SECRET` per network: a network with them is live; one without them uses the
     * sandbox connector when `sandboxNetworks` names it, else it is unavailable.
     */
    credentials: Partial<Record<Network, { clientId: string; clientSecret: string }>>;
    /**
     * `SOCIAL_SANDBOX_NETWORKS` (comma-separated network names): the networks whose offline sandbox
     * connector may run (for networks without credentials, and for accounts connected in sandbox mode).
     * Unset: every network outside production, none in production (DESIGN.md section 5: no stand-in runs
     * there unless named), so a production network without credentials is unavailable, not a sandbox.
     */
    sandboxNetworks: Network[];
    /**
     * `LINKEDIN_VERSION`: the `LinkedIn-Version` header (YYYYMM) of every LinkedIn REST call (versioned
     * APIs; a version is supported for at least one year). Default `DEFAULT_LINKEDIN_VERSION`.
     */
    linkedinVersion: string;
    /**
     * `LINKEDIN_ORGANIZATIONS`: also ask for the organization page scopes (`w_organization_social`,
     * `r_organization_social`, `rw_organization_admin`) at consent, to post as the pages the member
     * administers. Only for a LinkedIn app granted the Community Management API product: LinkedIn refuses
     * the whole consent (`unauthorized_scope_error`) when a requested scope is not granted to the app.
     * Default false (`openid profile w_member_social`: the member only).
     */
    linkedinOrganizations: boolean;
    /**
     * `DELIVERY_LEASE_SECONDS`: how long one delivery step may run before another worker may take the
     * delivery over (a worker that died mid-step is detected after this). Longer than the longest step
     * (an upload step stops after 120 s).
     */
    deliveryLeaseSeconds: number;
    /**
     * `DELIVERY_POLL_SECONDS`: how long each worker's delivery loop (src/operations/deliveries.ts) waits
     * before looking again when nothing is due (default 5 s).
     */
    deliveryPollSeconds: number;
    /**
     * `DELIVERY_NETWORK_CONCURRENCY`: delivery steps each worker runs at once on one network (default 8,
     * 1 to 64), each on a different account (src/operations/delivery-lanes.ts).
     */
    deliveryNetworkConcurrency: number;
  };
  /** Test-only: a loopback port the guarded fetch may reach (accepted only with a loopback PUBLIC_BASE_URL). */
  fetchAllowLoopbackPort: number | undefined;
}

export const networksArea: ConfigArea = { title: "Social networks", schema: NetworksEnv };

/**
 * The network settings; `publicBaseUrl` decides whether the test hooks are accepted.
 * @throws ConfigError naming a test hook that breaks its rule, a `{NETWORK}_CLIENT_ID` or `_SECRET` set
 * without its pair, SOCIAL_SANDBOX_NETWORKS naming no network, or a delivery setting out of its bounds.
 */
export function networksConfig(r: EnvReader, publicBaseUrl: string): NetworksConfig {
  const { picked, production } = r;
  checkTestHooks(picked, production, publicBaseUrl);
  const credentials: NetworksConfig["social"]["credentials"] = {};
  for (const n of SOCIAL_CREDENTIAL_NETWORKS) {
    const id = picked[`${n.toUpperCase()}_CLIENT_ID`];
    const secret = picked[`${n.toUpperCase()}_CLIENT_SECRET`];
    if ((id === undefined) !== (secret === undefined))
      throw new ConfigError(
        `${n.toUpperCase()}_CLIENT_${id === undefined ? "ID" : "SECRET"}`,
        `must be set together with ${n.toUpperCase()}_CLIENT_${id === undefined ? "SECRET" : "ID"}`,
      );
    if (id !== undefined && secret !== undefined) credentials[n] = { clientId: id, clientSecret: secret };
  }
  return {
    social: {
      httpOverride: picked.SOCIAL_HTTP_OVERRIDE ? stripSlash(picked.SOCIAL_HTTP_OVERRIDE) : undefined,
      credentials,
      sandboxNetworks: sandboxNetworks(picked.SOCIAL_SANDBOX_NETWORKS, production),
      linkedinVersion: picked.LINKEDIN_VERSION ?? DEFAULT_LINKEDIN_VERSION,
      linkedinOrganizations: r.bool("LINKEDIN_ORGANIZATIONS", false),
      deliveryLeaseSeconds: r.num("DELIVERY_LEASE_SECONDS", 300),
      deliveryPollSeconds: r.num("DELIVERY_POLL_SECONDS", 5),
      deliveryNetworkConcurrency: r.num("DELIVERY_NETWORK_CONCURRENCY", 8),
    },
    fetchAllowLoopbackPort: picked.FETCH_ALLOW_LOOPBACK_PORT
      ? Number(picked.FETCH_ALLOW_LOOPBACK_PORT)
      : undefined,
  };
}

/**
 * The test hooks SOCIAL_HTTP_OVERRIDE and FETCH_ALLOW_LOOPBACK_PORT (docs/social.md "Testing against fakes")
 * redirect outbound traffic, so they are accepted only in a local test set-up: never in production, only
 * while PUBLIC_BASE_URL is a loopback address (a service reachable from elsewhere never has them), and the
 * override only with a loopback target. Start-up logs a warning for each (src/bootstrap.ts).
 * @throws ConfigError naming the hook and the rule it breaks.
 */
function checkTestHooks(
  picked: Readonly<Record<string, string>>,
  production: boolean,
  publicBaseUrl: string,
): void {
  const publicHost = new URL(publicBaseUrl).hostname;
  for (const name of ["SOCIAL_HTTP_OVERRIDE", "FETCH_ALLOW_LOOPBACK_PORT"] as const) {
    const value = picked[name];
    if (!value) continue;
    if (production) throw new ConfigError(name, "is a test-only setting and is refused in production");
    if (!isLoopbackHost(publicHost))
      throw new ConfigError(
        name,
        `is a test-only setting, accepted only while PUBLIC_BASE_URL is a loopback address (it is ${publicBaseUrl})`,
      );
    if (name === "SOCIAL_HTTP_OVERRIDE" && !isLoopbackHost(new URL(value).hostname))
      throw new ConfigError(
        name,
        `must point at a loopback address (127.0.0.1, [::1] or localhost), not ${new URL(value).hostname}`,
      );
  }
}

/**
 * SOCIAL_SANDBOX_NETWORKS: the named networks (see `NetworksConfig.social.sandboxNetworks`), or the default.
 * @throws ConfigError naming SOCIAL_SANDBOX_NETWORKS and an entry that is not a network.
 */
function sandboxNetworks(value: string | undefined, production: boolean): Network[] {
  if (value === undefined) return production ? [] : [...SOCIAL_CREDENTIAL_NETWORKS];
  const names = value
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  for (const n of names)
    if (!(SOCIAL_CREDENTIAL_NETWORKS as readonly string[]).includes(n))
      throw new ConfigError(
        "SOCIAL_SANDBOX_NETWORKS",
        `"${n}" is not a network (one of ${SOCIAL_CREDENTIAL_NETWORKS.join(", ")})`,
      );
  return SOCIAL_CREDENTIAL_NETWORKS.filter((n) => names.includes(n));
}
