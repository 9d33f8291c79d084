/**
 * The settings that make the service use its live adapters against the fakes: each network's app
 * credentials (the same the fakes are built with, `FAKE_APPS`) and `SOCIAL_HTTP_OVERRIDE` pointing at the
 * fake server. One place for what every end-to-end social test needs.
 */
import type { FakeNetworkServer } from "./server.ts";

/** App credentials per network, as the fakes check them. */
export const FAKE_APPS = {
  instagram: { clientId: "ig-app", clientSecret: "ig-secret" },
  facebook: { clientId: "fb-app", clientSecret: "fb-secret" },
  tiktok: { clientKey: "tt-key", clientSecret: "tt-secret" },
  x: { clientId: "x-app", clientSecret: "x-secret" },
  youtube: { clientId: "yt-client.apps.googleusercontent.com", clientSecret: "yt-secret" },
  pinterest: { clientId: "pin-app", clientSecret: "pin-secret" },
  linkedin: { clientId: "li-app", clientSecret: "li-secret" },
} as const;

/** `{NETWORK}_CLIENT_ID/_SECRET` for `networks` plus `SOCIAL_HTTP_OVERRIDE` = the fake server. */
export function liveNetworkEnv(
  server: FakeNetworkServer,
  networks: ReadonlyArray<keyof typeof FAKE_APPS>,
): Record<string, string> {
  const env: Record<string, string> = { SOCIAL_HTTP_OVERRIDE: server.url };
  for (const n of networks) {
    const app = FAKE_APPS[n];
    env[`${n.toUpperCase()}_CLIENT_ID`] = "clientKey" in app ? app.clientKey : app.clientId;
    env[`${n.toUpperCase()}_CLIENT_SECRET`] = app.clientSecret;
  }
  return env;
}
