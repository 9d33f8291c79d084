/**
 * The video provider boundary: assembles a short video from generated frames (2x2 grid, single fade) or a
 * UGC hook plus a stored CTA video. Returns a description of the produced asset.
 */

export type VideoTemplate = "ugc-video" | "2x2-grid" | "single-fade";

export interface VideoRequest {
  template: VideoTemplate;
  /** Media asset ids of the frames (images) in order. */
  frameAssetIds: string[];
  /** The stored CTA video appended at the end (required for ugc-video). */
  ctaAssetId: string | null;
  /** On-screen hook text (UGC); data, never logged. */
  hook: string | null;
  seed: string;
}

/** What the provider produced. `rendered=false` means a render plan only (no video file exists yet). */
export interface VideoResult {
  provider: string;
  template: VideoTemplate;
  rendered: boolean;
  duration_seconds: number;
  width: number;
  height: number;
  frame_asset_ids: string[];
  cta_asset_id: string | null;
  render_id: string;
}

export interface VideoProvider {
  readonly name: string;
  /** @throws Error on a provider failure (the run is marked failed with a safe message). */
  render(request: VideoRequest, signal?: AbortSignal): Promise<VideoResult>;
}
