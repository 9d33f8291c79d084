/**
 * The hook overlay's own process (./overlay-process.ts starts it): reads one OverlayRequest as JSON on stdin
 * with the PNG's path in `file`, renders it with ./overlay.ts, writes the PNG there (mode 0600) and prints the
 * box's place and size as JSON on stdout: `{x, y, width, height, fontSize}` (pixels). Exits 1 with a short
 * message on stderr when the request is malformed or the render fails; the hook text is never printed.
 */
import { writeFile } from "node:fs/promises";
import { text } from "node:stream/consumers";
import { type OverlayRequest, renderHookOverlay } from "./overlay.ts";

try {
  const req = JSON.parse(await text(process.stdin)) as OverlayRequest & { file: string };
  const overlay = await renderHookOverlay(req);
  await writeFile(req.file, overlay.png, { mode: 0o600 });
  const { x, y, width, height, fontSize } = overlay;
  process.stdout.write(JSON.stringify({ x, y, width, height, fontSize }));
} catch (err) {
  process.stderr.write(`overlay: ${(err as Error).name}\n`);
  process.exitCode = 1;
}
