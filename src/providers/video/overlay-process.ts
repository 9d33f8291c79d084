/**
 * The hook overlay rendered in a short-lived node process of its own (./overlay-child.ts), not in the
 * service's. satori's layout (yoga's WebAssembly memory, which never shrinks), the fonts it parses and
 * resvg's pixmap add about 40 MB to a process that draws one overlay, and the service would keep that while
 * ffmpeg encodes beside it: with the render's process tree bounded at 300 MB for the 2x2 grid
 * (docs/providers.md "Video", bench/README.md), the child's memory is returned when it exits, before ffmpeg
 * starts.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Overlay, OverlayRequest } from "./overlay.ts";
import { VideoRenderError } from "./types.ts";

const CHILD = fileURLToPath(new URL("./overlay-child.ts", import.meta.url));

/** The longest an overlay render may take, milliseconds (one takes about 0.3 s of CPU). */
const OVERLAY_TIMEOUT_MS = 60_000;

/**
 * Renders `req`'s hook overlay to the PNG file `file` in a child process; returns the box's place and size
 * in the frame (pixels; Overlay without its bytes).
 * @throws VideoRenderError "the hook text could not be drawn" when the child fails, times out or `signal`
 *   aborts (no hook text in the reason).
 */
export function renderHookOverlayFile(
  req: OverlayRequest,
  file: string,
  signal?: AbortSignal,
): Promise<Omit<Overlay, "png">> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], {
      stdio: ["pipe", "pipe", "ignore"],
      timeout: OVERLAY_TIMEOUT_MS,
      signal,
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    const failed = () => new VideoRenderError("the hook text could not be drawn");
    child.on("error", () => reject(failed()));
    child.on("close", (code) => {
      if (code !== 0) return reject(failed());
      try {
        resolve(JSON.parse(out) as Omit<Overlay, "png">);
      } catch {
        reject(failed());
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify({ ...req, file }));
  });
}
