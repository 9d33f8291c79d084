/**
 * Media and its storage: where media lives (local disk or an S3-compatible store; src/providers/storage.ts,
 * storage-s3.ts), upload sizes, per-plan storage quotas, and the ffmpeg and ffprobe binaries with their
 * memory bound (docs/ffmpeg.md).
 */
import Type from "typebox";
import { Bool, type ConfigArea, ConfigError, type EnvReader, GIB, Int, OneOf, Str } from "./env.ts";

const MIB = 1024 * 1024;
const quota = (plan: string) =>
  `stored media per workspace of an owner on the ${plan} plan, bytes; an upload past it is refused (413) naming the quota`;

export const MediaEnv = Type.Object({
  MEDIA_DIR: Str(
    { minLength: 1 },
    { description: "media folder of the `local` storage", defaultText: "`{DATA_DIR}/media`" },
  ),
  MEDIA_MAX_IMAGE_BYTES: Int(20 * MIB, 1, 1_000_000_000, { description: "largest image upload, bytes" }),
  MEDIA_MAX_VIDEO_BYTES: Int(200 * MIB, 1, 1_000_000_000, { description: "largest video upload, bytes" }),
  MEDIA_STORAGE: OneOf(["local", "s3"], {
    description:
      "`local` (files under `MEDIA_DIR`) or `s3` (any S3-compatible store; needed by more than one instance)",
    defaultText: "`local`",
  }),
  S3_BUCKET: Str(
    { pattern: "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$" },
    { description: "the bucket (required for `s3`)", defaultText: "-" },
  ),
  S3_ENDPOINT: Str({ pattern: "^https?://" }, { description: "a non-AWS endpoint", defaultText: "AWS" }),
  S3_FORCE_PATH_STYLE: Bool({
    description: "path-style addressing",
    defaultText: "`true` when an endpoint is set",
  }),
  AWS_REGION: Str({ minLength: 1 }, { description: "S3 region", defaultText: "`us-east-1`" }),
  FFMPEG_PATH: Str(
    { minLength: 1 },
    {
      description: "ffmpeg to use instead; the start banner names the version (docs/ffmpeg.md)",
      defaultText: "`ffmpeg` on `PATH` (Debian: `apt-get install ffmpeg`)",
    },
  ),
  FFPROBE_PATH: Str(
    { minLength: 1 },
    { description: "ffprobe to use instead", defaultText: "`ffprobe` on `PATH`" },
  ),
  FFMPEG_MAX_MEMORY_BYTES: Int(2 * GIB, 256 * MIB, Number.MAX_SAFE_INTEGER, {
    description: "address space of one ffmpeg or ffprobe run (`prlimit --as`), beside its timeout, bytes",
  }),
  STORAGE_QUOTA_CREATOR_BYTES: Int(GIB, 0, Number.MAX_SAFE_INTEGER, { description: quota("Creator") }),
  STORAGE_QUOTA_GROWTH_BYTES: Int(10 * GIB, 0, Number.MAX_SAFE_INTEGER, { description: quota("Growth") }),
  STORAGE_QUOTA_PRO_BYTES: Int(100 * GIB, 0, Number.MAX_SAFE_INTEGER, { description: quota("Pro") }),
});

export interface MediaConfig {
  media: {
    dir: string;
    maxImageBytes: number;
    maxVideoBytes: number;
    /** ffmpeg and ffprobe to use instead of those on PATH (FFMPEG_PATH, FFPROBE_PATH; docs/ffmpeg.md). */
    ffmpegPath: string | undefined;
    ffprobePath: string | undefined;
    /** Address space of one ffmpeg or ffprobe run (FFMPEG_MAX_MEMORY_BYTES, RLIMIT_AS), bytes. */
    ffmpegMaxMemoryBytes: number;
    /** Stored media bytes allowed per workspace, by the owner's plan (uploads beyond it are refused). */
    storageQuotaBytes: { creator: number; growth: number; pro: number };
    /** `local` (files under `dir`, the default) or `s3` (any S3-compatible object store). */
    storage: "local" | "s3";
    /** Set when `storage` is `s3`; credentials come from the standard AWS variables and files. */
    s3: { bucket: string; endpoint: string | undefined; region: string; forcePathStyle: boolean } | undefined;
  };
}

export const mediaArea: ConfigArea = {
  title: "Media and storage",
  schema: MediaEnv,
  external: [
    {
      names: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_*"],
      defaultText: "the SDK's default chain",
      description: "S3 credentials, read by the AWS SDK as usual",
    },
  ],
};

/**
 * The media settings; `dataDir` is the server's data folder (the default media folder is under it).
 * @throws ConfigError naming S3_BUCKET when MEDIA_STORAGE=s3 without it, or a size out of its bounds.
 */
export function mediaConfig(r: EnvReader, dataDir: string): MediaConfig {
  const { picked } = r;
  const storage = (picked.MEDIA_STORAGE ?? "local") as MediaConfig["media"]["storage"];
  if (storage === "s3" && !picked.S3_BUCKET)
    throw new ConfigError("S3_BUCKET", "required when MEDIA_STORAGE=s3");
  return {
    media: {
      dir: picked.MEDIA_DIR ?? `${dataDir}/media`,
      maxImageBytes: r.num("MEDIA_MAX_IMAGE_BYTES", 20 * MIB),
      maxVideoBytes: r.num("MEDIA_MAX_VIDEO_BYTES", 200 * MIB),
      storageQuotaBytes: {
        creator: r.num("STORAGE_QUOTA_CREATOR_BYTES", GIB),
        growth: r.num("STORAGE_QUOTA_GROWTH_BYTES", 10 * GIB),
        pro: r.num("STORAGE_QUOTA_PRO_BYTES", 100 * GIB),
      },
      storage,
      s3:
        storage === "s3"
          ? {
              bucket: picked.S3_BUCKET as string,
              endpoint: picked.S3_ENDPOINT,
              region: picked.AWS_REGION ?? "us-east-1",
              forcePathStyle: r.bool("S3_FORCE_PATH_STYLE", Boolean(picked.S3_ENDPOINT)),
            }
          : undefined,
      ffmpegPath: picked.FFMPEG_PATH,
      ffprobePath: picked.FFPROBE_PATH,
      ffmpegMaxMemoryBytes: r.num("FFMPEG_MAX_MEMORY_BYTES", 2 * GIB),
    },
  };
}
