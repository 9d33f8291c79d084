/**
 * `npm run bench:media` (video part): renders each video template with the local ffmpeg compositor
 * (src/providers/video/local.ts; local images, the hook overlay, a 4 s CTA clip for AI UGC) and reports
 * wall time, the ratio of wall time to the video's duration (target <= 1.5 on 2 cores) and the peak RSS
 * of the render's whole process tree (the node process plus ffmpeg; target <= 400 MB), next to a baseline
 * measured in the same run: a plain ffmpeg encode of 8 s of lavfi `testsrc2` (moving, detailed) with the
 * same encoder settings (what any 1080x1920 H.264 video costs on this machine).
 *
 * Each case runs in a child process (`--case <name>`) so that its RSS is its own; the parent samples the
 * child's process tree from /proc every 20 ms, and the child reports its CPU time including ffmpeg's
 * (/proc/self/stat cutime/cstime; Linux). `BENCH_VIDEO_CASES=2x2-grid,...` limits the templates run.
 * See bench/README.md.
 */
import { execFile } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { runMeasured } from "./proc.ts";
import { mediaBinaries } from "../src/providers/media-binaries.ts";
import { probeVideo } from "../src/providers/media-probe.ts";
import { encodeArgs, localVideoProvider } from "../src/providers/video/local.ts";
import type { VideoTemplate } from "../src/providers/video/types.ts";

const run = promisify(execFile);
const bin = mediaBinaries({ ffmpegPath: process.env.FFMPEG_PATH, ffprobePath: process.env.FFPROBE_PATH });
const CASES = ["baseline", "2x2-grid", "single-fade", "ugc-video"] as const;
type Case = (typeof CASES)[number];

/** Runs one case in this process; prints `{seconds}` (the output's duration) as JSON. */
async function runCase(name: Case): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-bench-video-"));
  try {
    const out = path.join(dir, "out.mp4");
    if (name === "baseline") {
      await run(bin.ffmpeg!, [
        ...["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1080x1920:r=30:d=8"],
        ...["-f", "lavfi", "-t", "8", "-i", "anullsrc=r=44100:cl=stereo"],
        // The service's own encoder settings (src/providers/video/local.ts), on a plain test pattern.
        ...["-filter_complex", "[0:v]null[v];[1:a]anull[a]", ...encodeArgs(out, 8)],
      ]);
    } else {
      const image = path.join(dir, "image.png");
      await run(bin.ffmpeg!, [
        ...["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1080x1920:rate=1:duration=1"],
        ...["-frames:v", "1", image],
      ]);
      const cta = path.join(dir, "cta.mp4");
      await run(bin.ffmpeg!, [
        ...["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=720x1280:rate=30:duration=4"],
        ...["-f", "lavfi", "-i", "sine=frequency=440:duration=4", "-c:v", "libx264", "-preset", "ultrafast"],
        ...["-pix_fmt", "yuv420p", "-c:a", "aac", "-t", "4", cta],
      ]);
      const bytes = await readFile(image);
      const template = name as VideoTemplate;
      const provider = localVideoProvider({ ffmpeg: bin.ffmpeg, ffprobe: bin.ffprobe });
      await provider.render({
        template,
        images: template === "2x2-grid" ? [bytes, bytes, bytes, bytes] : [bytes],
        hook: "POV: you just found the serum everyone keeps asking about",
        caption: "Glow Serum",
        cta: { open: async () => createReadStream(cta) },
        outputFile: out,
        seed: "bench",
      });
    }
    const info = await probeVideo(out, { ffprobePath: bin.ffprobe });
    process.stdout.write(JSON.stringify({ seconds: info.durationSeconds, cpu: await cpuSeconds() }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** CPU seconds (user + system) of this process and its reaped children, from /proc/self/stat. */
async function cpuSeconds(): Promise<number> {
  const stat = await readFile("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14..17 of proc(5) (utime, stime, cutime, cstime) are 11..14 after the command name; clock ticks.
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
}

/** Runs a case in a child process; returns wall time (s), output duration (s) and peak tree RSS (bytes). */
async function measure(name: Case) {
  const started = process.hrtime.bigint();
  const { out, peak } = await runMeasured(name, fileURLToPath(import.meta.url), ["--case", name]);
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const result = JSON.parse(out) as { seconds: number; cpu: number };
  return { wall, seconds: result.seconds, cpu: result.cpu, peak };
}

async function main(): Promise<void> {
  const i = process.argv.indexOf("--case");
  if (i > 0) return runCase(process.argv[i + 1] as Case);
  if (!bin.ffmpeg || !bin.ffprobe)
    throw new Error("ffmpeg/ffprobe missing (npm install, or FFMPEG_PATH/FFPROBE_PATH)");
  console.log(`video templates on ${os.cpus().length} CPU(s), load average ${os.loadavg()[0]!.toFixed(1)}`);
  const cores = os.availableParallelism();
  console.log(
    "case         video s   wall s   wall/video   CPU s   CPU/(video x cores)   peak RSS MB   vs baseline (wall/video)",
  );
  let base = 0;
  const only = process.env.BENCH_VIDEO_CASES?.split(",");
  for (const name of CASES.filter((c) => c === "baseline" || !only || only.includes(c))) {
    const r = await measure(name);
    const ratio = r.wall / r.seconds;
    if (name === "baseline") base = ratio;
    const cpuRatio = r.cpu / (r.seconds * cores);
    console.log(
      [
        name.padEnd(12),
        r.seconds.toFixed(2).padStart(7),
        r.wall.toFixed(2).padStart(8),
        ratio.toFixed(2).padStart(12),
        r.cpu.toFixed(2).padStart(7),
        cpuRatio.toFixed(2).padStart(21),
        (r.peak / 1e6).toFixed(0).padStart(13),
        (name === "baseline" ? "1.00" : (ratio / base).toFixed(2)).padStart(26),
      ].join(" "),
    );
  }
  console.log(
    "targets (2 idle cores): wall/video <= 1.5 and peak RSS <= 400 MB per video; on a busy machine read CPU/(video x cores), which estimates wall/video when both cores are free",
  );
}

await main();
