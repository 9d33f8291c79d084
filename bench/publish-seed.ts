/**
 * The accounts and posts of the publishing benchmark (bench/publish.ts): accounts connected on the seven
 * networks' fakes in turn (bench/sync-networks.ts `connect`, as the connect flow leaves them), and on each
 * account `perAccount` posts of the kind its network publishes, all due at the same minute:
 * - X, Facebook, LinkedIn (the organization page): text;
 * - Instagram, Pinterest: one 1080x1350 JPEG (pulled by the network from the service's signed public URL);
 * - TikTok, YouTube: the 4-second 1080x1920 30 fps H.264/AAC MP4 (uploaded in one chunk); TikTok's with the
 *   creator's choices the review page records (privacy PUBLIC_TO_EVERYONE, a title).
 * Every post has a caption of its own. The two media files are stored once and shared by the posts.
 */
import { readFile } from "node:fs/promises";
import { createUser } from "../src/domain/account/accounts.ts";
import { createMediaAsset } from "../src/domain/media/media.ts";
import type { Owner } from "../src/domain/owner.ts";
import type { AppContext } from "../src/context.ts";
import type { Network } from "../src/providers/social/types.ts";
import { networkSamples } from "../test/fakes/samples.ts";
import { type BenchNetwork, connectBenchAccount } from "./sync-networks.ts";

/** Accounts connected at once while seeding, and rows per insert. */
const SEED_PARALLEL = 16;
const INSERT_ROWS = 1000;

/** A connected account of the bench: its id and network. */
export interface SeededAccount {
  id: string;
  network: Network;
}

/** Stores `file` and records it as a media asset of `owner`; its id. */
async function storedAsset(
  ctx: AppContext,
  owner: Owner,
  file: string,
  kind: "image" | "video",
): Promise<string> {
  const bytes = await readFile(file);
  const storageKey = ctx.providers.storage.newKey(kind === "video" ? "mp4" : "jpg");
  await ctx.providers.storage.putBytes(storageKey, bytes);
  const size =
    kind === "video"
      ? {
          width: 1080,
          height: 1920,
          durationSeconds: 4,
          frameRate: 30,
          videoCodec: "h264",
          audioCodec: "aac",
        }
      : { width: 1080, height: 1350 };
  const asset = await createMediaAsset(ctx.db, owner, {
    kind,
    mimeType: kind === "video" ? "video/mp4" : "image/jpeg",
    bytes: bytes.length,
    storageKey,
    source: kind === "video" ? "generated" : "upload",
    ...size,
  });
  return asset.asset_id;
}

/** Connects `count` accounts, account `i` on `BENCH_NETWORKS[i % 7]`. */
export async function seedAccounts(
  ctx: AppContext,
  owner: Owner,
  networks: Record<Network, BenchNetwork>,
  count: number,
): Promise<SeededAccount[]> {
  const out: SeededAccount[] = [];
  for (let start = 0; start < count; start += SEED_PARALLEL) {
    const group = Array.from({ length: Math.min(SEED_PARALLEL, count - start) }, (_, j) => start + j);
    const made = await Promise.all(
      group.map(async (i) => {
        const { id, network } = await connectBenchAccount(ctx, owner, networks, i);
        return { id, network };
      }),
    );
    out.push(...made);
  }
  return out;
}

/** The bench's owner (one user and workspace). */
export async function benchOwner(ctx: AppContext): Promise<Owner> {
  const who = await createUser(ctx.db, {
    email: "bench-publish@example.test",
    password: "benchmark password",
    workspace: "Bench",
  });
  return { userId: who.user_id, workspaceId: who.workspace_id };
}

/**
 * Inserts `perAccount` approved posts on every account with one pending delivery each, due at `due` (a time
 * far enough ahead that no worker takes one while they are written; `makeDue` moves them all at once).
 * @returns the number of deliveries.
 */
export async function seedDuePosts(
  ctx: AppContext,
  owner: Owner,
  accounts: readonly SeededAccount[],
  perAccount: number,
  due: Date,
): Promise<number> {
  const samples = await networkSamples();
  const image = await storedAsset(ctx, owner, samples.jpg, "image");
  const video = await storedAsset(ctx, owner, samples.mp4, "video");
  const kindOf = (n: Network) =>
    n === "instagram" || n === "pinterest" ? "image" : n === "tiktok" || n === "youtube" ? "video" : "text";
  const own = { workspace_id: owner.workspaceId, user_id: owner.userId };
  const plan = accounts.flatMap((a, i) => Array.from({ length: perAccount }, (_, k) => ({ a, i, k })));
  for (let start = 0; start < plan.length; start += INSERT_ROWS) {
    const rows = plan.slice(start, start + INSERT_ROWS);
    const posts = await ctx
      .db("posts")
      .insert(
        rows.map(({ a, i, k }) => {
          const kind = kindOf(a.network);
          return {
            ...own,
            type: kind,
            status: "approved",
            title: kind === "video" ? `Same minute ${i}.${k}` : null,
            caption: `Same minute: account ${i}, post ${k}`,
            media_asset_ids: kind === "text" ? "[]" : JSON.stringify([kind === "image" ? image : video]),
          };
        }),
      )
      .returning("id");
    await ctx.db("deliveries").insert(
      rows.map(({ a, i, k }, j) => ({
        ...own,
        post_id: posts[j].id,
        social_account_id: a.id,
        status: "pending",
        next_attempt_at: due,
        options: JSON.stringify(
          a.network === "tiktok"
            ? { privacy_level: "PUBLIC_TO_EVERYONE", title: `Same minute ${i}.${k}` }
            : {},
        ),
      })),
    );
  }
  return plan.length;
}

/** Moves every pending delivery to `due` in one statement (the workers see all of them due together). */
export async function makeDue(ctx: AppContext, due: Date): Promise<void> {
  await ctx.db("deliveries").where({ status: "pending" }).update({ next_attempt_at: due });
}
