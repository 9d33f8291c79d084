/**
 * The ffmpeg and ffprobe binaries (docs/ffmpeg.md, README "Media stack") and the bounds every run of them
 * gets. They decode uploaded media, so they must be a maintained build: by default the `ffmpeg` and
 * `ffprobe` found on PATH, which on Debian is the distribution's package (bookworm: 5.1.x with Debian's
 * security fixes, `apt-get install ffmpeg`); config `media.ffmpegPath` / `media.ffprobePath` (FFMPEG_PATH,
 * FFPROBE_PATH) name others. Nothing is downloaded at install or at run time.
 *
 * Every run is bounded (`boundedCommand`): a wall-clock timeout (the caller's), ffmpeg's own `-max_alloc`
 * (largest single allocation) and, where util-linux `prlimit` exists (every Debian system), the address
 * space (RLIMIT_AS, `media.ffmpegMaxMemoryBytes`) and CPU seconds (RLIMIT_CPU) of the process. Binaries are
 * only ever spawned with argument arrays, never through a shell.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";

/** Settings of config `media` these functions read. */
export interface MediaBinarySettings {
  ffmpegPath?: string | undefined;
  ffprobePath?: string | undefined;
}

export interface MediaBinaries {
  /** Absolute path of ffmpeg, or undefined when none is installed or configured. */
  ffmpeg: string | undefined;
  /** Absolute path of ffprobe, or undefined when none is installed or configured. */
  ffprobe: string | undefined;
}

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The first executable `name` in the directories of PATH, or undefined. */
export function onPath(name: string, envPath = process.env.PATH ?? ""): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    if (executable(file)) return file;
  }
  return undefined;
}

/** Resolves both binaries: the overrides (config `media`), else `ffmpeg` / `ffprobe` on PATH. */
export function mediaBinaries(media: MediaBinarySettings): MediaBinaries {
  return {
    ffmpeg: media.ffmpegPath ?? onPath("ffmpeg"),
    ffprobe: media.ffprobePath ?? onPath("ffprobe"),
  };
}

/** How to install the binaries, for messages. */
export const INSTALL_HINT =
  "install a maintained ffmpeg (Debian/Ubuntu: apt-get install ffmpeg) or set FFMPEG_PATH and FFPROBE_PATH";

/**
 * One line describing what is missing and how to fix it, or undefined when both binaries exist and are
 * executable. Without ffmpeg no video renders; without ffprobe no video upload is measured.
 */
export function mediaBinariesProblem(binaries: MediaBinaries): string | undefined {
  const missing: string[] = [];
  for (const [name, file] of [
    ["ffmpeg", binaries.ffmpeg],
    ["ffprobe", binaries.ffprobe],
  ] as const)
    if (file === undefined || !executable(file)) missing.push(`${name} (${file ?? "not found on PATH"})`);
  return missing.length > 0
    ? `video rendering and video uploads are unavailable: missing ${missing.join(", ")}; ${INSTALL_HINT}`
    : undefined;
}

/** The bounds of one run of ffmpeg or ffprobe. */
export interface RunBounds {
  /** Address space of the process (RLIMIT_AS), bytes. */
  maxMemoryBytes: number;
  /** CPU time of the process (RLIMIT_CPU), seconds. */
  maxCpuSeconds: number;
}

/** Address space of one ffmpeg or ffprobe run unless configured (FFMPEG_MAX_MEMORY_BYTES), bytes: 2 GiB. */
export const DEFAULT_MAX_MEMORY_BYTES = 2 * 1024 ** 3;

/** Largest single allocation ffmpeg may make (`-max_alloc`), bytes: a 4096 x 4096 RGBA frame is 64 MiB. */
export const MAX_ALLOC_BYTES = 256 * 1024 * 1024;

let prlimitPath: string | null | undefined;

/** True when runs get the memory and CPU bounds (util-linux `prlimit` is on PATH). */
export function memoryBoundAvailable(): boolean {
  if (prlimitPath === undefined) prlimitPath = onPath("prlimit") ?? null;
  return prlimitPath !== null;
}

/**
 * The command to spawn for `binary` with `args` under `bounds`: `prlimit --as=… --cpu=… -- binary …args`
 * when util-linux prlimit is on PATH, else the binary alone (the wall-clock timeout and `-max_alloc` still
 * apply). `args` must already hold `-max_alloc` (ffmpeg and ffprobe read it as a global option).
 * @returns `[file, argv]` for `spawn` (no shell), and whether the memory and CPU bounds apply.
 */
export function boundedCommand(
  binary: string,
  args: readonly string[],
  bounds: RunBounds,
): { file: string; argv: string[]; bounded: boolean } {
  if (!memoryBoundAvailable() || !prlimitPath) return { file: binary, argv: [...args], bounded: false };
  return {
    file: prlimitPath,
    argv: [
      `--as=${Math.floor(bounds.maxMemoryBytes)}`,
      `--cpu=${Math.max(1, Math.ceil(bounds.maxCpuSeconds))}`,
      "--",
      binary,
      ...args,
    ],
    bounded: true,
  };
}

/** What `inspectMediaBinaries` found about one binary. */
export interface BinaryReport {
  path: string | undefined;
  /** The version it prints (`ffmpeg version X`), or undefined when it is missing or did not answer. */
  version: string | undefined;
  /**
   * True for a maintained build: version 6.1 or newer, or a distribution's patched package (a Debian or
   * Ubuntu revision such as `5.1.9-0+deb12u1`).
   */
  maintained: boolean;
}

/**
 * True for `version` (as `ffmpeg -version` prints it) of a maintained build: upstream 6.1 or newer, or a
 * Debian/Ubuntu package revision (`+debNuM`, `ubuntu`), which the distribution's security team patches.
 * A git snapshot (`N-47683-g0e8eb07980-static`, the 2018 build @ffmpeg-installer shipped) is not.
 */
export function isMaintainedVersion(version: string): boolean {
  if (/\+deb\d+u\d+|ubuntu/i.test(version)) return true;
  const m = /^n?(\d+)\.(\d+)/i.exec(version);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 6 || (major === 6 && minor >= 1);
}

/** Runs `binary -version` (5 s at most) and reads the version from its first line. */
function versionOf(binary: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(binary, ["-version"], { stdio: ["ignore", "pipe", "ignore"], shell: false });
    let out = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (c: string) => {
      if (out.length < 4096) out += c;
    });
    child.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.on("close", () => {
      clearTimeout(timer);
      resolve(/^ff(?:mpeg|probe) version (\S+)/.exec(out)?.[1]);
    });
  });
}

/** Finds both binaries and asks each for its version (start-up banner, src/cli/banner.ts). */
export async function inspectMediaBinaries(
  media: MediaBinarySettings,
): Promise<{ ffmpeg: BinaryReport; ffprobe: BinaryReport }> {
  const binaries = mediaBinaries(media);
  const report = async (file: string | undefined): Promise<BinaryReport> => {
    const version = file && executable(file) ? await versionOf(file) : undefined;
    return { path: file, version, maintained: version !== undefined && isMaintainedVersion(version) };
  };
  const [ffmpeg, ffprobe] = await Promise.all([report(binaries.ffmpeg), report(binaries.ffprobe)]);
  return { ffmpeg, ffprobe };
}

/**
 * The banner's one-line summary of `report`: the versions and paths, a warning for a build that is not
 * maintained, or what is missing and how to install it.
 */
export function describeMediaBinaries(report: { ffmpeg: BinaryReport; ffprobe: BinaryReport }): string {
  const { ffmpeg, ffprobe } = report;
  if (!ffmpeg.version || !ffprobe.version) {
    const missing = [!ffmpeg.version && "ffmpeg", !ffprobe.version && "ffprobe"]
      .filter(Boolean)
      .join(" and ");
    return `not available (${missing} not found or not working): video rendering and video uploads are unavailable; ${INSTALL_HINT}`;
  }
  const old = [ffmpeg, ffprobe].filter((b) => !b.maintained);
  const line = `ffmpeg ${ffmpeg.version} (${ffmpeg.path}), ffprobe ${ffprobe.version} (${ffprobe.path})`;
  return old.length === 0
    ? line
    : `${line}; WARNING: ${old.map((b) => b.version).join(", ")} is older than 6.1 and not a distribution's patched build, so it may have known vulnerabilities: ${INSTALL_HINT}`;
}
