/**
 * What a network fake makes of a video's streams (test only): the bytes probed with the service's ffprobe
 * (src/providers/media-probe.ts) and checked against the placement's specification in the rule table
 * (src/providers/social/rules.ts `video.spec`: frame rate, resolution, codecs, each from the network's page),
 * so that a fake refuses a video the network would refuse (Reels and TikTok: 23 to 60 fps; TikTok: each
 * side at least 360 px), each fake in its own network's words.
 */
import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { probeVideo } from "../../src/providers/media-probe.ts";
import { checkNetworkRules, type RuleViolation } from "../../src/providers/social/rule-check.ts";
import type { Network } from "../../src/providers/social/types.ts";

/** The placement rules `bytes` (an MP4) breaks for `network`: frame rate, resolution, codecs; [] when none. */
export async function videoStreamProblems(network: Network, bytes: Buffer): Promise<RuleViolation[]> {
  const file = path.join(os.tmpdir(), `smcp-fake-video-${randomBytes(6).toString("hex")}.mp4`);
  await writeFile(file, bytes);
  try {
    const info = await probeVideo(file);
    const problems = checkNetworkRules(network, {
      caption: "",
      media: [
        {
          kind: "video",
          mime: "video/mp4",
          bytes: bytes.length,
          width: info.width,
          height: info.height,
          durationSeconds: info.durationSeconds,
          frameRate: info.frameRate,
          videoCodec: info.videoCodec,
          audioCodec: info.audioCodec,
        },
      ],
    });
    return problems.filter((p) =>
      ["video_frame_rate", "video_resolution", "video_codec", "audio_codec"].includes(p.rule),
    );
  } catch {
    return [{ rule: "video_codec", message: "the video could not be read" }];
  } finally {
    await rm(file, { force: true });
  }
}
