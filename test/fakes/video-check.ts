/**
 * What a network fake makes of a video's streams (test only): the bytes probed with the service's ffprobe
 * (src/providers/media-probe.ts) and checked against the placement's specification in the rule table
 * (src/providers/social/rules.ts `video.spec`: frame rate, resolution, codecs, each from the network's page),
 * so that a fake refuses a video the network would refuse (Reels and TikTok: 23 to 60 fps; TikTok: each
 * side at least 360 px), each fake in its own network's words.
 */
import { createHash, randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { probeVideo } from "../../src/providers/media-probe.ts";
import { checkNetworkRules, type RuleViolation } from "../../src/providers/social/rule-check.ts";
import type { Network } from "../../src/providers/social/types.ts";

/** Answers of `videoStreamProblems` by network and SHA-256 of the bytes (the same bytes, the same streams). */
const seen = new Map<string, Promise<RuleViolation[]>>();
const SEEN_MAX = 32;

/**
 * The placement rules `bytes` (an MP4) breaks for `network`: frame rate, resolution, codecs; [] when none.
 * The same bytes are probed once (the last SEEN_MAX kept): a benchmark uploads one file many times.
 */
export function videoStreamProblems(network: Network, bytes: Buffer): Promise<RuleViolation[]> {
  const key = `${network}:${createHash("sha256").update(bytes).digest("hex")}`;
  let answer = seen.get(key);
  if (!answer) {
    answer = probeProblems(network, bytes);
    if (seen.size >= SEEN_MAX) seen.delete(seen.keys().next().value!);
    seen.set(key, answer);
  }
  return answer;
}

async function probeProblems(network: Network, bytes: Buffer): Promise<RuleViolation[]> {
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
