/**
 * The ffmpeg arguments of each video template (README "Media stack"; ./local.ts runs them): the encoder
 * settings every template shares, the filter graphs of the 2x2 grid, the single fade and AI UGC, and the
 * pre-pass that cover-fits the grid's tiles. Only filters of ffmpeg 5.1 (Debian bookworm's package,
 * docs/ffmpeg.md) and later are used; https://ffmpeg.org/ffmpeg-filters.html describes each.
 */
import os from "node:os";
import { TEMPLATE_SECONDS, VIDEO_FPS, VIDEO_HEIGHT, VIDEO_WIDTH } from "./types.ts";

const W = VIDEO_WIDTH;
const H = VIDEO_HEIGHT;
const FPS = VIDEO_FPS;
/** Largest output file ffmpeg may write (`-fs`), bytes. */
const MAX_OUTPUT_BYTES = 200 * 1024 * 1024;

/**
 * x264 threads: the cores this process may use, at most 4, as slice threads (`sliced-threads=1`): one frame
 * in flight instead of one per frame thread, which saves about 50 MB at 1080x1920 for the same CPU time.
 */
const ENCODER_THREADS = Math.min(os.availableParallelism(), 4);

/**
 * Encoder settings shared by every template (H.264 High, yuv420p, AAC 44.1 kHz stereo, faststart). The
 * `superfast` preset keeps CABAC and 8x8 transforms (High profile) at about 1.5x the speed and less memory
 * than `veryfast` (no lookahead, no mb-tree). No B-frames (`bframes=0`): x264 holds no frames back to reorder,
 * about 60 MB less at 1080x1920 for the same look at the same CRF (a file about 20% larger; SSIM 0.999
 * against the B-frame encode); bench/README.md has the numbers. Expects a filter graph that
 * labels its outputs `[v]` and `[a]`; also used by bench/media-video.ts for its same-settings baseline.
 */
export function encodeArgs(outputFile: string, seconds: number): string[] {
  return [
    "-map",
    "[v]",
    "-map",
    "[a]",
    "-c:v",
    "libx264",
    "-profile:v",
    "high",
    "-preset",
    "superfast",
    "-crf",
    "21",
    "-threads",
    String(ENCODER_THREADS),
    "-x264-params",
    "sliced-threads=1:bframes=0",
    "-pix_fmt",
    "yuv420p",
    "-r",
    String(FPS),
    "-c:a",
    "aac",
    "-b:a",
    "128k",
    "-ar",
    "44100",
    "-ac",
    "2",
    "-t",
    seconds.toFixed(3),
    "-fs",
    String(MAX_OUTPUT_BYTES),
    "-movflags",
    "+faststart",
    "-f",
    "mp4",
    outputFile,
  ];
}

/**
 * A still image is one input frame, processed once (`prep`: scaling, cropping) and then repeated with the
 * `loop` filter into `frames` frames at 30 fps: decoding and scaling the picture for every output frame
 * (`-loop 1`) would cost far more than the encode.
 */
const held = (input: number, prep: string, frames: number, out: string) =>
  `[${input}:v]${prep},loop=loop=${frames - 1}:size=1:start=0,setpts=N/${FPS}/TB[${out}]`;
/** A silent stereo AAC-ready audio input of `seconds`. */
const silence = (seconds: number) => [
  "-f",
  "lavfi",
  "-t",
  seconds.toFixed(3),
  "-i",
  "anullsrc=r=44100:cl=stereo",
];
/** Scales and crops an image stream to cover `w`x`h` exactly. */
const cover = (w: number, h: number) =>
  `scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1`;
const AUDIO_FORMAT = "aresample=44100,aformat=sample_fmts=fltp:channel_layouts=stereo";

/** A small deterministic number in [0, 1) from the seed (motion direction choices). */
function seeded(seed: string, salt: number): number {
  let h = 2166136261 ^ salt;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
  return ((h >>> 0) % 1000) / 1000;
}

/**
 * Slow push-in over a still: zoompan turns the one input frame into `frames` output frames (its `d`),
 * working on a 1.25x upscale so that the whole-pixel crop steps stay small. With `pan` the view also drifts
 * sideways by that share of the visible width over the clip (negative: to the left; the direction comes
 * from the seed), kept inside the picture.
 */
function zoomIn(frames: number, to: number, panSalt: number, pan = 0): string {
  const sw = Math.round(W * 1.25);
  const sh = Math.round(H * 1.25);
  const step = ((to - 1) / frames).toFixed(6);
  const drift = panSalt < 0.5 ? -pan : pan;
  const dx =
    drift === 0
      ? panSalt < 0.5
        ? "iw/2-(iw/zoom/2)"
        : `iw/2-(iw/zoom/2)+(iw/zoom)*0.04*on/${frames}`
      : `max(0,min(iw-iw/zoom,iw/2-(iw/zoom/2)+(iw/zoom)*${drift}*on/${frames}))`;
  return `${cover(sw, sh)},zoompan=z='min(1+${step}*on,${to})':x='${dx}':y='ih/2-(ih/zoom/2)':d=${frames}:s=${W}x${H}:fps=${FPS},setpts=N/${FPS}/TB`;
}

/** Largest tile zoom (a close-up of the middle quarter of the picture). */
const MAX_ZOOM = 4;

/**
 * Builds the ffmpeg arguments that cover-fit each image to a 540x960 grid cell (one PNG per image), zoomed
 * into its centre by `zooms[i]` (1 = the whole picture; clamped to 1..MAX_ZOOM).
 */
export function tileArgs(images: string[], tiles: string[], zooms: number[] = []): string[] {
  const args: string[] = [];
  for (const img of images) args.push("-i", img);
  images.forEach((_, i) => {
    const z = Math.min(Math.max(Number.isFinite(zooms[i]) ? zooms[i]! : 1, 1), MAX_ZOOM);
    const even = (n: number) => 2 * Math.round(n / 2);
    const fit =
      z === 1 ? cover(W / 2, H / 2) : `${cover(even((W / 2) * z), even((H / 2) * z))},crop=${W / 2}:${H / 2}`;
    args.push("-map", `${i}:v`, "-vf", fit, "-frames:v", "1", "-f", "image2", tiles[i]!);
  });
  return args;
}

/** The hook overlay's PNG file and where its box goes in the frame (./overlay.ts), pixels. */
export interface HookLayer {
  file: string;
  x: number;
  y: number;
}

/** Builds the ffmpeg arguments of the 2x2 grid: tiles slide in from the edges, then the hook fades in. */
export function gridArgs(images: string[], overlay: HookLayer, out: string): string[] {
  const T = TEMPLATE_SECONDS["2x2-grid"];
  const tw = W / 2;
  const th = H / 2;
  const args: string[] = [];
  for (const img of images) args.push("-i", img);
  args.push("-i", overlay.file, ...silence(T));
  const frames = T * FPS;
  const slide = 0.6;
  // The background is a source inside the graph, not a `-f lavfi` input: ffmpeg then makes its frames as the
  // graph asks for them instead of queueing them ahead of the encoder (same pictures, about 45 MB less).
  const parts: string[] = [`color=c=0x111318:s=${W}x${H}:r=${FPS}:d=${T}[bg]`];
  for (let i = 0; i < images.length; i++)
    parts.push(held(i, `${cover(tw, th)},format=yuv420p`, frames, `t${i}`));
  // Tile i: target (x, y); enters at t = 0.3 + 0.45 i from the left/right edge for the left/right column.
  let prev = "bg";
  images.forEach((_, i) => {
    const x = (i % 2) * tw;
    const y = Math.floor(i / 2) * th;
    const t0 = (0.3 + 0.45 * i).toFixed(2);
    const from = i % 2 === 0 ? -tw : W;
    const xExpr = `if(lt(t,${t0}),${from},if(lt(t,${t0}+${slide}),${from}+(${x - from})*(t-${t0})/${slide},${x}))`;
    parts.push(`[${prev}][t${i}]overlay=x='${xExpr}':y=${y}:eval=frame[g${i}]`);
    prev = `g${i}`;
  });
  const textAt = 0.3 + 0.45 * images.length + slide;
  parts.push(held(images.length, "format=yuva420p", frames, "txt0"));
  parts.push(`[txt0]fade=t=in:st=${textAt.toFixed(2)}:d=0.5:alpha=1[txt]`);
  parts.push(
    `[${prev}][txt]overlay=${overlay.x}:${overlay.y}:format=yuv420,fade=t=out:st=${(T - 0.5).toFixed(2)}:d=0.5,format=yuv420p[v]`,
  );
  parts.push(`[${images.length + 1}:a]${AUDIO_FORMAT}[a]`);
  return [...args, "-filter_complex", parts.join(";"), ...encodeArgs(out, T)];
}

/** Builds the ffmpeg arguments of the single fade: slow zoom, fade in and out, the hook throughout. */
export function fadeArgs(image: string, overlay: HookLayer, out: string, seed: string): string[] {
  const T = TEMPLATE_SECONDS["single-fade"];
  const graph = [
    `[0:v]${zoomIn(T * FPS, 1.12, seeded(seed, 1))},format=yuv420p[bg]`,
    held(1, "format=yuva420p", T * FPS, "txt"),
    `[bg][txt]overlay=${overlay.x}:${overlay.y}:format=yuv420,fade=t=in:st=0:d=0.8,fade=t=out:st=${(T - 0.8).toFixed(2)}:d=0.8,format=yuv420p[v]`,
    `[2:a]${AUDIO_FORMAT}[a]`,
  ].join(";");
  return ["-i", image, "-i", overlay.file, ...silence(T), "-filter_complex", graph, ...encodeArgs(out, T)];
}

/**
 * Builds the ffmpeg arguments of AI UGC: the hook segment (input 0: a looped image with a push-in, or a
 * clip) with the hook overlay, then the CTA (scaled and padded, its audio or silence), joined with concat.
 */
export function ugcArgs(
  hook: { kind: "image" | "clip"; file: string; seconds: number; hasAudio: boolean },
  overlay: HookLayer,
  cta: { file: string; seconds: number; hasAudio: boolean },
  out: string,
  seed: string,
): string[] {
  const hs = hook.seconds;
  const hookFrames = Math.round(hs * FPS);
  const args: string[] = hook.kind === "image" ? ["-i", hook.file] : ["-t", hs.toFixed(3), "-i", hook.file];
  args.push("-i", overlay.file, "-i", cta.file, ...silence(hs), ...silence(cta.seconds));
  const fit = `scale=${W}:${H}:force_original_aspect_ratio=decrease,pad=${W}:${H}:(ow-iw)/2:(oh-ih)/2:color=black,setsar=1`;
  const hookVideo =
    hook.kind === "image"
      ? `[0:v]${zoomIn(hookFrames, 1.25, seeded(seed, 2), 0.1)}`
      : `[0:v]${fit},fps=${FPS},trim=duration=${hs.toFixed(3)},setpts=PTS-STARTPTS`;
  const graph = [
    `${hookVideo},format=yuv420p[hv]`,
    `[hv][txt]overlay=${overlay.x}:${overlay.y}:format=yuv420,format=yuv420p[h]`,
    held(1, "format=yuva420p", hookFrames, "txt"),
    `[${hook.kind === "clip" && hook.hasAudio ? "0:a" : "3:a"}]${AUDIO_FORMAT},apad,atrim=0:${hs.toFixed(3)},asetpts=PTS-STARTPTS[ha]`,
    `[2:v]${fit},fps=${FPS},format=yuv420p,setpts=PTS-STARTPTS[c]`,
    `[${cta.hasAudio ? "2:a" : "4:a"}]${AUDIO_FORMAT},apad,atrim=0:${cta.seconds.toFixed(3)},asetpts=PTS-STARTPTS[ca]`,
    `[h][ha][c][ca]concat=n=2:v=1:a=1[v][a]`,
  ].join(";");
  return [...args, "-filter_complex", graph, ...encodeArgs(out, hs + cta.seconds)];
}
