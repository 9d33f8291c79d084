/**
 * What ffprobe measured of a video asset besides its duration and size: the frame rate (frames per second,
 * the video stream's average) and the codecs of its video and audio streams (ffprobe `codec_name`: `h264`,
 * `hevc`, `aac`). The network rules check them before an approval is created (src/providers/social/rules.ts:
 * Reels and TikTok take 23 to 60 fps, H.264 or HEVC). Null for images and for assets measured before.
 * Additive only.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("media_assets", (t) => {
    t.double("frame_rate");
    t.text("video_codec");
    t.text("audio_codec");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore from backup instead of rolling back");
}
