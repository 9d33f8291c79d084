/**
 * The ffmpeg and ffprobe binaries (README "Media stack"): by default the static builds shipped by the npm
 * packages @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe (platform packages, no download at
 * install); config `media.ffmpegPath` / `media.ffprobePath` (env FFMPEG_PATH, FFPROBE_PATH) override them.
 * Both are only ever spawned with argument arrays, never through a shell.
 */
import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The binary path a package exports, or undefined when the package (or its platform package) is missing. */
function packagedPath(pkg: "@ffmpeg-installer/ffmpeg" | "@ffprobe-installer/ffprobe"): string | undefined {
  try {
    const path = (require(pkg) as { path?: unknown }).path;
    return typeof path === "string" ? path : undefined;
  } catch {
    return undefined;
  }
}

export interface MediaBinaries {
  /** Absolute path of ffmpeg, or undefined when none is installed or configured. */
  ffmpeg: string | undefined;
  /** Absolute path of ffprobe, or undefined when none is installed or configured. */
  ffprobe: string | undefined;
}

/** Resolves both binaries from the overrides (config `media`) or the installed packages. */
export function mediaBinaries(media: {
  ffmpegPath?: string | undefined;
  ffprobePath?: string | undefined;
}): MediaBinaries {
  return {
    ffmpeg: media.ffmpegPath ?? packagedPath("@ffmpeg-installer/ffmpeg"),
    ffprobe: media.ffprobePath ?? packagedPath("@ffprobe-installer/ffprobe"),
  };
}

/**
 * One line describing what is missing and how to fix it, or undefined when both binaries exist and are
 * executable. Start-up prints it (src/main.ts): without ffmpeg no video renders and no video upload is measured.
 */
export function mediaBinariesProblem(binaries: MediaBinaries): string | undefined {
  const missing: string[] = [];
  for (const [name, path, env, pkg] of [
    ["ffmpeg", binaries.ffmpeg, "FFMPEG_PATH", "@ffmpeg-installer/ffmpeg"],
    ["ffprobe", binaries.ffprobe, "FFPROBE_PATH", "@ffprobe-installer/ffprobe"],
  ] as const) {
    let ok = path !== undefined;
    if (path !== undefined) {
      try {
        accessSync(path, constants.X_OK);
      } catch {
        ok = false;
      }
    }
    if (!ok) missing.push(`${name} (${path ?? "not installed"}): run \`npm install ${pkg}\` or set ${env}`);
  }
  return missing.length > 0
    ? `video rendering and video uploads are unavailable, missing ${missing.join("; ")}`
    : undefined;
}
