/**
 * The sandbox connector: an offline stand-in for every network without `{NETWORK}_CLIENT_ID/_SECRET`, so the
 * whole connect-and-publish flow works on a fresh machine (service spec 1.8). It does real work and says
 * what it is:
 * - OAuth: the consent page is this service's own `/sandbox/{network}/authorize` (src/web/sandbox.ts),
 *   clearly labelled "Sandbox". Its authorization code is sealed (AES-GCM, the application key) with the
 *   network, the account names typed on the page, the redirect URI, the PKCE S256 challenge and a 10-minute
 *   expiry; the exchange checks all of them (RFC 6749 4.1.3, RFC 7636 4.6). Access tokens are sealed too
 *   and expire after 24 h; refresh issues a new one. Facebook asks the user to pick Pages after consent, as
 *   the live Facebook flow does.
 * - Publishing: step 1 reads every media file in full and records its SHA-256 and size (a missing or
 *   truncated file fails the delivery); step 2 publishes. The post's `post_url` is this service's page
 *   `{PUBLIC_BASE_URL}/sandbox/{network}/{delivery}`, which shows the post as published (labelled Sandbox).
 *   Nothing is sent to any network.
 * - Metrics: sandbox counters labelled as such (./metrics.ts), never presented as a network's numbers.
 * - First comments and removal as the network's own API allows them (../published-rules.ts): a comment is
 *   recorded at the sandbox post page's `#first-comment`; a removal deletes nothing anywhere (the sandbox
 *   post exists only on this service's page). Networks without a comment or delete API have none here either.
 */
import { createHash, randomUUID } from "node:crypto";
import { NETWORK_RULES } from "../rules.ts";
import { COMMENT_RULES, REMOVAL_RULES } from "../published-rules.ts";
import {
  type AdapterDeps,
  type Capabilities,
  type DeliveryJob,
  type NetworkAccount,
  type NetworkAdapter,
  NetworkAuthError,
  NetworkRejectedError,
  type SaveIds,
  type StepResult,
  type TokenSet,
} from "../network.ts";
import type { Network } from "../types.ts";
import { sandboxMetrics } from "./metrics.ts";

/** The one scope a sandbox grant carries. */
export const SANDBOX_SCOPE = "sandbox.publish";
/** Lifetime of a sandbox authorization code, seconds. */
export const SANDBOX_CODE_TTL = 600;
/** Lifetime of a sandbox access token, seconds (like TikTok's 24 h tokens). */
export const SANDBOX_TOKEN_TTL = 24 * 3600;

interface SandboxCode {
  t: "sandbox-code";
  n: Network;
  names: string[];
  ru: string;
  cc: string | null;
  exp: number;
}
interface SandboxToken {
  t: "sandbox-access" | "sandbox-refresh";
  n: Network;
  names: string[];
  exp: number | null;
  jti: string;
}

/** What a network's sandbox account can publish, from the rule table. */
export function capabilitiesOf(network: Network): Capabilities {
  const r = NETWORK_RULES[network];
  return {
    text: !r.requiresMedia,
    image: r.images.max > 0,
    carousel: r.images.max > 1,
    video: r.video.allowed,
  };
}

/** The stable network account id of a sandbox account named `name`. */
export function sandboxAccountId(network: Network, name: string): string {
  return `sandbox-${createHash("sha256").update(`${network}\n${name.toLowerCase()}`).digest("hex").slice(0, 16)}`;
}

/** The sandbox post page of a delivery. */
export function sandboxPostUrl(publicBaseUrl: string, network: Network, deliveryId: string): string {
  return `${publicBaseUrl}/sandbox/${network}/${deliveryId}`;
}

/** The sandbox's codes and tokens are sealed for this purpose only (src/crypto/seal.ts). */
const SANDBOX_BINDING = { purpose: "sandbox-token" } as const;

const S256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

function openAs<T extends { t: string }>(deps: AdapterDeps, sealed: string, kind: T["t"]): T | undefined {
  try {
    const v = deps.sealer.open<T>(sealed, SANDBOX_BINDING);
    return v && v.t === kind ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Mints the authorization code the sandbox consent page hands back (src/web/sandbox.ts), for `names`
 * (1 to 5 account names; Facebook: Page names).
 * @throws Error when a name is empty or too long.
 */
export function mintSandboxCode(
  deps: AdapterDeps,
  input: { network: Network; names: string[]; redirectUri: string; codeChallenge: string | null },
): string {
  const names = input.names.map((n) => n.trim()).filter(Boolean);
  if (names.length === 0 || names.length > 5 || names.some((n) => n.length > 60))
    throw new Error("give 1 to 5 account names of at most 60 characters");
  const code: SandboxCode = {
    t: "sandbox-code",
    n: input.network,
    names,
    ru: input.redirectUri,
    cc: input.codeChallenge,
    exp: deps.now().getTime() + SANDBOX_CODE_TTL * 1000,
  };
  return deps.sealer.seal(code, SANDBOX_BINDING);
}

/** The sandbox adapter of `network`. */
export function sandboxAdapter(network: Network, deps: AdapterDeps): NetworkAdapter {
  const issue = (names: string[], refresh?: string): TokenSet => {
    const now = deps.now().getTime();
    const access: SandboxToken = {
      t: "sandbox-access",
      n: network,
      names,
      exp: now + SANDBOX_TOKEN_TTL * 1000,
      jti: randomUUID(),
    };
    const refreshToken =
      refresh ??
      deps.sealer.seal(
        { t: "sandbox-refresh", n: network, names, exp: null, jti: randomUUID() },
        SANDBOX_BINDING,
      );
    return {
      accessToken: deps.sealer.seal(access, SANDBOX_BINDING),
      refreshToken,
      expiresAt: new Date(access.exp!),
      scopes: [SANDBOX_SCOPE],
    };
  };
  const checkAccess = (tokens: TokenSet): SandboxToken => {
    const t = openAs<SandboxToken>(deps, tokens.accessToken, "sandbox-access");
    if (!t || t.n !== network) throw new NetworkAuthError("the sandbox token is not valid");
    if (t.exp !== null && t.exp <= deps.now().getTime())
      throw new NetworkAuthError("the sandbox token has expired");
    return t;
  };
  return {
    network,
    mode: "sandbox",
    oauth: {
      pkce: true,
      requiredScopes: [SANDBOX_SCOPE],
      refreshAheadSeconds: 3600,
      pickAccounts: network === "facebook",
      authorizeUrl({ state, redirectUri, codeChallenge }) {
        const u = new URL(`${deps.publicBaseUrl}/sandbox/${network}/authorize`);
        u.searchParams.set("response_type", "code");
        u.searchParams.set("client_id", "sandbox");
        u.searchParams.set("redirect_uri", redirectUri);
        u.searchParams.set("scope", SANDBOX_SCOPE);
        u.searchParams.set("state", state);
        if (codeChallenge) {
          u.searchParams.set("code_challenge", codeChallenge);
          u.searchParams.set("code_challenge_method", "S256");
        }
        return u.toString();
      },
      async exchangeCode({ code, redirectUri, codeVerifier }) {
        const c = openAs<SandboxCode>(deps, code, "sandbox-code");
        if (!c || c.n !== network) throw new NetworkAuthError("the sandbox authorization code is not valid");
        if (c.exp <= deps.now().getTime())
          throw new NetworkAuthError("the sandbox authorization code has expired");
        if (c.ru !== redirectUri) throw new NetworkAuthError("the redirect URI does not match");
        if (c.cc !== null && (!codeVerifier || S256(codeVerifier) !== c.cc))
          throw new NetworkAuthError("the PKCE code verifier does not match");
        return issue(c.names);
      },
      async refresh(tokens) {
        const r = tokens.refreshToken
          ? openAs<SandboxToken>(deps, tokens.refreshToken, "sandbox-refresh")
          : undefined;
        if (!r || r.n !== network) throw new NetworkAuthError("the sandbox refresh token is not valid");
        return issue(r.names, tokens.refreshToken);
      },
      async accounts(tokens): Promise<NetworkAccount[]> {
        const t = checkAccess(tokens);
        return t.names.map((name) => ({
          networkAccountId: sandboxAccountId(network, name),
          handle: name
            .toLowerCase()
            .replace(/[^a-z0-9_.]+/g, "_")
            .replace(/^_+|_+$/g, ""),
          displayName: `${name} (Sandbox)`,
          capabilities: capabilitiesOf(network),
        }));
      },
    },
    publisher: {
      async step(job: DeliveryJob, save: SaveIds): Promise<StepResult> {
        if (job.account.tokens.accessToken) checkAccess(job.account.tokens);
        const ids = job.delivery.networkIds;
        if (!ids.sandbox_upload) {
          const items: Array<{ asset_id: string; sha256: string; bytes: number }> = [];
          for (const m of job.post.media) {
            const hash = createHash("sha256");
            let bytes = 0;
            const stream = await m.open().catch(() => {
              throw new NetworkRejectedError(`media item ${m.assetId} could not be read`);
            });
            for await (const chunk of stream) {
              hash.update(chunk as Buffer);
              bytes += (chunk as Buffer).length;
            }
            if (bytes !== m.bytes)
              throw new NetworkRejectedError(
                `media item ${m.assetId} has ${bytes} bytes on disk, ${m.bytes} recorded`,
              );
            items.push({ asset_id: m.assetId, sha256: hash.digest("hex"), bytes });
          }
          await save({ sandbox_upload: { items } });
          return { state: "processing", pollAfterSeconds: 0 };
        }
        return {
          state: "published",
          postUrl: sandboxPostUrl(deps.publicBaseUrl, network, job.delivery.id),
          networkPostId: job.delivery.id,
        };
      },
      async reconcile(job: DeliveryJob) {
        return job.delivery.networkIds.sandbox_upload
          ? { state: "processing" as const, pollAfterSeconds: 0 }
          : { state: "not_created" as const };
      },
    },
    metrics: sandboxMetrics(network, checkAccess),
    ...(COMMENT_RULES[network]
      ? {
          comments: {
            scopes: [],
            async create(job) {
              checkAccess(job.account.tokens);
              return {
                id: `${job.post.networkPostId}-first-comment`,
                url: `${job.post.postUrl ?? ""}#first-comment`,
              };
            },
            async find(job) {
              return {
                id: `${job.post.networkPostId}-first-comment`,
                url: `${job.post.postUrl ?? ""}#first-comment`,
              };
            },
          },
        }
      : {}),
    ...(REMOVAL_RULES[network].api
      ? {
          remover: {
            async remove(account) {
              checkAccess(account.tokens);
            },
          },
        }
      : {}),
  };
}
