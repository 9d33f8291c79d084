/** Byte ranges of stored media (HTTP range requests, chunked uploads to networks). */
import { type Readable, Transform } from "node:stream";

/** Slices bytes `start..end` (inclusive, 0-based) out of `src`, which is destroyed once the end is passed. */
export function sliceStream(src: Readable, start: number, end: number): Readable {
  let pos = 0;
  const out = new Transform({
    transform(chunk: Buffer, _enc, done) {
      const from = Math.max(0, start - pos);
      const to = Math.min(chunk.length, end - pos + 1);
      pos += chunk.length;
      if (to > from) this.push(chunk.subarray(from, to));
      if (pos > end) {
        src.unpipe(out);
        src.destroy();
        this.push(null);
      }
      done();
    },
  });
  return src.pipe(out);
}
