/**
 * The live network adapters, one factory per network that has one. The registry
 * (src/providers/providers.ts) uses a network's factory when its `{NETWORK}_CLIENT_ID` and
 * `{NETWORK}_CLIENT_SECRET` are configured, and the sandbox connector (./sandbox/) otherwise: a network
 * without a factory here always uses the sandbox.
 */
import { facebookAdapter } from "./facebook/adapter.ts";
import { instagramAdapter } from "./instagram/adapter.ts";
import { linkedinAdapter } from "./linkedin/adapter.ts";
import type { AdapterFactory } from "./network.ts";
import { pinterestAdapter } from "./pinterest/adapter.ts";
import { tiktokAdapter } from "./tiktok/adapter.ts";
import type { Network } from "./types.ts";
import { xAdapter } from "./x/adapter.ts";
import { youtubeAdapter } from "./youtube/adapter.ts";

export const LIVE_ADAPTERS: Partial<Record<Network, AdapterFactory>> = {
  instagram: instagramAdapter,
  facebook: facebookAdapter,
  tiktok: tiktokAdapter,
  x: xAdapter,
  youtube: youtubeAdapter,
  pinterest: pinterestAdapter,
  linkedin: linkedinAdapter,
};
