/**
 * Running ffmpeg (README "Media stack", docs/ffmpeg.md): the binary from src/providers/media-binaries.ts,
 * spawned with an argument array (node:child_process `spawn`, no shell), stdin closed, a wall-clock timeout
 * (SIGKILL), the caller's AbortSignal, and the memory and CPU bounds of `boundedCommand` (RLIMIT_AS,
 * RLIMIT_CPU, `-max_alloc`). Only the last 4 KiB of stderr are kept, for a safe error summary that never
 * contains user text (inputs are file paths inside a private temp dir; texts reach ffmpeg as PNG files).
 */
import { spawn } from "node:child_process";
import os from "node:os";
import { boundedCommand, DEFAULT_MAX_MEMORY_BYTES, MAX_ALLOC_BYTES } from "../media-binaries.ts";

/** Raised when ffmpeg cannot start, fails, times out or is aborted. `detail` is ffmpeg's last stderr line. */
export class FfmpegError extends Error {
  readonly detail: string;
  constructor(message: string, detail: string) {
    super(message);
    this.detail = detail;
    this.name = "FfmpegError";
  }
}

const STDERR_KEEP = 4096;

/**
 * Runs `ffmpeg` with `args` (after `-nostdin -hide_banner -loglevel error -y -max_alloc …`) and resolves when
 * it exits with 0 within `timeoutMs` milliseconds, its address space at most `maxMemoryBytes` (default
 * DEFAULT_MAX_MEMORY_BYTES) and its CPU time at most the timeout times the cores.
 * @throws FfmpegError on a non-zero exit (also when a bound killed it), a spawn error, the timeout or
 *   `signal`'s abort.
 */
export function runFfmpeg(
  ffmpeg: string,
  args: string[],
  options: { timeoutMs: number; signal?: AbortSignal | undefined; maxMemoryBytes?: number | undefined },
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new FfmpegError("ffmpeg was aborted", ""));
    const command = boundedCommand(
      ffmpeg,
      [
        "-nostdin",
        "-hide_banner",
        "-loglevel",
        "error",
        "-y",
        "-max_alloc",
        String(MAX_ALLOC_BYTES),
        ...args,
      ],
      {
        maxMemoryBytes: options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES,
        maxCpuSeconds: (options.timeoutMs / 1000) * os.availableParallelism(),
      },
    );
    const child = spawn(command.file, command.argv, { stdio: ["ignore", "ignore", "pipe"], shell: false });
    let tail = "";
    let why: string | undefined;
    const kill = (reason: string) => {
      why ??= reason;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => kill(`ffmpeg timed out after ${options.timeoutMs} ms`), options.timeoutMs);
    const onAbort = () => kill("ffmpeg was aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (c: string) => {
      tail = (tail + c).slice(-STDERR_KEEP);
    });
    const done = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    child.on("error", (err) => {
      done();
      reject(
        new FfmpegError(`ffmpeg could not start (${(err as NodeJS.ErrnoException).code ?? "error"})`, ""),
      );
    });
    child.on("close", (code) => {
      done();
      const last = tail.trim().split("\n").pop() ?? "";
      if (why) return reject(new FfmpegError(why, last));
      if (code !== 0) return reject(new FfmpegError(`ffmpeg exited with ${code}`, last));
      resolve();
    });
  });
}
