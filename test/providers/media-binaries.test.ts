/**
 * The ffmpeg/ffprobe binaries (src/providers/media-binaries.ts, docs/ffmpeg.md): a maintained build found on
 * PATH (Debian's security-patched package here; never the 2018 static build @ffmpeg-installer shipped),
 * overridable, a one-line problem when missing, a version classification, and the memory bound every run
 * gets (RLIMIT_AS through prlimit): a run over it fails, the same run under the default passes.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  boundedCommand,
  describeMediaBinaries,
  inspectMediaBinaries,
  isMaintainedVersion,
  mediaBinaries,
  mediaBinariesProblem,
  onPath,
} from "../../src/providers/media-binaries.ts";
import { probeVideo } from "../../src/providers/media-probe.ts";
import { FfmpegError, runFfmpeg } from "../../src/providers/video/ffmpeg.ts";

test("ffmpeg and ffprobe are found on PATH, are a maintained build, and overrides win", async () => {
  const found = mediaBinaries({});
  assert.equal(found.ffmpeg, onPath("ffmpeg"));
  assert.equal(found.ffprobe, onPath("ffprobe"));
  assert.equal(mediaBinariesProblem(found), undefined);
  const report = await inspectMediaBinaries({});
  assert.ok(report.ffmpeg.version, "ffmpeg answers -version");
  assert.equal(report.ffmpeg.version, report.ffprobe.version, "one build");
  assert.doesNotMatch(report.ffmpeg.version, /^N-/, "not a 2018 git snapshot");
  assert.equal(report.ffmpeg.maintained, true, `${report.ffmpeg.version} is maintained`);
  assert.match(describeMediaBinaries(report), /^ffmpeg \S+ \(\/.+\/ffmpeg\), ffprobe \S+ \(\/.+\/ffprobe\)$/);
  assert.deepEqual(mediaBinaries({ ffmpegPath: "/opt/ff/ffmpeg", ffprobePath: "/opt/ff/ffprobe" }), {
    ffmpeg: "/opt/ff/ffmpeg",
    ffprobe: "/opt/ff/ffprobe",
  });
});

test("maintained: 6.1 or newer, or a distribution's patched package; not a snapshot or an old release", () => {
  for (const [version, maintained] of [
    ["6.1", true],
    ["6.1.2", true],
    ["7.1.1-1ubuntu1", true],
    ["n8.0", true],
    ["5.1.9-0+deb12u1", true],
    ["4.3.8-0+deb11u3", true],
    ["6.0", false],
    ["5.1.9", false],
    ["4.1", false],
    ["N-47683-g0e8eb07980-static", false],
  ] as const)
    assert.equal(isMaintainedVersion(version), maintained, version);
  const old = describeMediaBinaries({
    ffmpeg: { path: "/x/ffmpeg", version: "N-47683-g0e8eb07980-static", maintained: false },
    ffprobe: { path: "/x/ffprobe", version: "6.1", maintained: true },
  });
  assert.match(
    old,
    /WARNING: N-47683-g0e8eb07980-static is older than 6\.1 and not a distribution's patched build/,
  );
});

test("a missing binary is one line naming it and the fix; the banner line says videos are unavailable", async () => {
  const problem = mediaBinariesProblem(mediaBinaries({ ffmpegPath: "/nonexistent/ffmpeg" }));
  assert.ok(problem);
  assert.doesNotMatch(problem, /\n/);
  assert.match(problem, /ffmpeg \(\/nonexistent\/ffmpeg\)/);
  assert.match(problem, /apt-get install ffmpeg/);
  assert.match(problem, /FFMPEG_PATH/);
  assert.doesNotMatch(problem, /ffprobe \(/);
  const report = await inspectMediaBinaries({ ffmpegPath: "/nonexistent/ffmpeg" });
  assert.match(
    describeMediaBinaries(report),
    /^not available \(ffmpeg not found or not working\): video rendering and video uploads are unavailable; install a maintained ffmpeg/,
  );
  await assert.rejects(probeVideo("/nonexistent.mp4", { ffprobePath: "/nonexistent/ffprobe" }));
  assert.equal(onPath("ffmpeg", "/nonexistent:/also-not"), undefined);
});

test("every run is bounded: prlimit sets the address space and CPU time", () => {
  const c = boundedCommand("/usr/bin/ffmpeg", ["-version"], { maxMemoryBytes: 1024 ** 3, maxCpuSeconds: 30 });
  assert.equal(c.bounded, true, "util-linux prlimit is on this machine");
  assert.match(c.file, /\/prlimit$/);
  assert.deepEqual(c.argv, [`--as=${1024 ** 3}`, "--cpu=30", "--", "/usr/bin/ffmpeg", "-version"]);
});

test("an ffmpeg run over its memory bound fails; the same run within the default passes", async () => {
  const ffmpeg = mediaBinaries({}).ffmpeg!;
  const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-bound-"));
  // A 4000 x 4000 frame scaled up: hundreds of MB of frame buffers.
  const args = ["-f", "lavfi", "-i", "testsrc=s=4000x4000", "-frames:v", "1", path.join(dir, "big.png")];
  await assert.rejects(
    runFfmpeg(ffmpeg, args, { timeoutMs: 60_000, maxMemoryBytes: 128 * 1024 ** 2 }),
    (err: unknown) => err instanceof FfmpegError,
  );
  await runFfmpeg(ffmpeg, args, { timeoutMs: 60_000 });
});
