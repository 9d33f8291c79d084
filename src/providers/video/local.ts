/**
 * The local video provider (default; offline): does not encode video. It returns a deterministic render plan
 * (timeline length, size, frames, CTA) that the automation run stores as its result; a real adapter renders.
 */
import { createHash } from "node:crypto";
import type { VideoProvider, VideoRequest, VideoResult } from "./types.ts";

/** Seconds each template shows its frames, before any CTA video. */
const FRAME_SECONDS: Record<VideoRequest["template"], number> = {
  "2x2-grid": 6,
  "single-fade": 5,
  "ugc-video": 4,
};

/** Creates the local provider. */
export function localVideoProvider(): VideoProvider {
  return {
    name: "local",
    async render(request: VideoRequest): Promise<VideoResult> {
      const renderId = createHash("sha256").update(`render:${request.seed}`).digest("hex").slice(0, 24);
      return {
        provider: "local",
        template: request.template,
        rendered: false,
        duration_seconds: FRAME_SECONDS[request.template],
        width: 1080,
        height: 1920,
        frame_asset_ids: [...request.frameAssetIds],
        cta_asset_id: request.ctaAssetId,
        render_id: renderId,
      };
    },
  };
}
