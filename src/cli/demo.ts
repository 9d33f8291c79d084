/**
 * `social-mcp admin demo [--email E] [--password P]`: seeds a demo account so that every read tool returns
 * something at once: a user (plan pro, so analytics tools are allowed) with a workspace,
 * three products, four images (JPEGs drawn with sharp: a soft product silhouette on its colour, written to the media store) and a few draft posts.
 * Prints the email and password (generated when not given) as JSON.
 */
import { createHash, randomBytes } from "node:crypto";
import type { AppContext } from "../context.ts";
import { boundedSharp as sharp } from "../providers/media-limits.ts";
import { type Config, loadConfig } from "../config/index.ts";
import type { Knex } from "../db/knex.ts";
import { createUser } from "../domain/account/accounts.ts";
import { createMediaAsset } from "../domain/media/media.ts";
import { createImagePost, createTextPost } from "../domain/content/posts.ts";
import { createProduct } from "../domain/products/products.ts";
import { localDiskStorage } from "../providers/storage.ts";
import { flags } from "./args.ts";
import { seedDemoActivity } from "./demo-activity.ts";

export const DEMO_USAGE = "admin demo [--email E] [--password P]";

/** The demo's images, each with the alt text its owner gave it in the media library. */
const IMAGES: Array<{ title: string; labels: string[]; rgb: [number, number, number]; alt: string }> = [
  {
    title: "Glow Serum bottle",
    labels: ["serum", "bottle", "product"],
    rgb: [238, 176, 64],
    alt: "A white Glow Serum bottle on a warm amber background",
  },
  {
    title: "Trail Runner side view",
    labels: ["shoe", "running", "product"],
    rgb: [40, 90, 160],
    alt: "Trail Runner 2 from the side on a deep blue background",
  },
  {
    title: "Stoneware mug",
    labels: ["mug", "kitchen", "product"],
    rgb: [120, 120, 110],
    alt: "A handmade stoneware mug on a grey background",
  },
  {
    title: "Summer sale banner",
    labels: ["banner", "sale", "summer"],
    rgb: [230, 70, 90],
    alt: "A red banner for the summer sale",
  },
];

/**
 * Seeds the demo data; with the service context `app` (the CLI's), also its activity (./demo-activity.ts:
 * sandbox accounts, a published, a scheduled and a failed delivery, a request waiting for approval).
 * @returns `{email, password, user_id, workspace_id, products, media, posts, activity?}`.
 */
export async function runDemo(
  db: Knex,
  argv: string[],
  config: Config = loadConfig(),
  app?: AppContext,
): Promise<Record<string, unknown>> {
  const f = flags(argv, ["email", "password"]);
  const email = f.email ?? `demo-${randomBytes(3).toString("hex")}@example.com`;
  const password = f.password ?? randomBytes(12).toString("base64url");
  const ids = await createUser(
    db,
    { email, password, workspace: "Demo workspace", plan: "pro", displayName: "Demo" },
    config.passwordHash,
  );
  const owner = { userId: ids.user_id, workspaceId: ids.workspace_id };
  const storage = app?.providers.storage ?? localDiskStorage(config.media.dir);

  const media: string[] = [];
  for (const img of IMAGES) {
    const [r, g, b] = img.rgb;
    const shape = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="320"><ellipse cx="160" cy="280" rx="90" ry="14" fill="#000" opacity="0.25"/><rect x="110" y="70" width="100" height="200" rx="24" fill="#fff" opacity="0.85"/></svg>`,
    );
    const bytes = await sharp({ create: { width: 320, height: 320, channels: 3, background: { r, g, b } } })
      .composite([{ input: shape }])
      .jpeg({ quality: 88 })
      .toBuffer();
    const key = storage.newKey("jpg");
    await storage.putBytes(key, bytes);
    const a = await createMediaAsset(db, owner, {
      kind: "image",
      mimeType: "image/jpeg",
      bytes: bytes.length,
      width: 320,
      height: 320,
      labels: img.labels,
      title: img.title,
      originalName: `${img.title.toLowerCase().replace(/\W+/g, "-")}.jpg`,
      storageKey: key,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      source: "generated",
      altText: img.alt,
    });
    media.push(a.asset_id);
  }

  const products = await db.transaction(async (trx) => [
    await createProduct(trx, owner, {
      name: "Glow Serum",
      description: "Vitamin C face serum, 30 ml. Brightens and evens skin tone.",
      price: 29.9,
      currency: "EUR",
      brand: "Lumen",
      product_url: "https://shop.example.com/glow-serum",
      tags: ["skincare", "serum"],
      image_asset_ids: [media[0]!],
    }),
    await createProduct(trx, owner, {
      name: "Trail Runner 2",
      description: "Lightweight trail running shoe with a grippy sole.",
      price: 119,
      currency: "USD",
      brand: "Outdoor Co",
      tags: ["running", "shoes"],
      image_asset_ids: [media[1]!],
    }),
    await createProduct(trx, owner, {
      name: "Stoneware Mug",
      description: "Handmade stoneware mug, 350 ml, dishwasher safe.",
      price: 18,
      currency: "GBP",
      brand: "Clay & Co",
      tags: ["kitchen", "handmade"],
      image_asset_ids: [media[2]!],
    }),
  ]);

  const posts = [
    await createTextPost(db, owner, {
      caption: "Our summer sale starts Friday: 20% off everything in the shop!",
      title: "Summer sale teaser",
      product_id: null,
    }),
    await createTextPost(db, owner, {
      caption: "Meet Glow Serum: vitamin C for brighter mornings. Now €29.90.",
      title: "Glow Serum launch",
      product_id: products[0]!.product_id,
    }),
    await createImagePost(db, owner, {
      media_asset_ids: [media[1]!, media[3]!],
      caption: "Trail Runner 2 is back in stock. Built for muddy miles.",
      title: "Trail Runner restock",
      product_id: products[1]!.product_id,
    }),
    // Three images: LinkedIn makes a 3-page document of them; the first has its own alt text for this post.
    await createImagePost(db, owner, {
      media_asset_ids: [media[0]!, media[2]!, media[3]!],
      alt_texts: ["The Glow Serum bottle, first of three summer favourites"],
      caption: "Three favourites for the summer sale: Glow Serum, the stoneware mug and 20% off everything.",
      title: "Summer favourites",
      product_id: null,
    }),
  ];

  const activity = app
    ? await seedDemoActivity(app, owner, {
        text: posts[0]!.post_id,
        launch: posts[1]!.post_id,
        image: posts[2]!.post_id,
        gallery: posts[3]!.post_id,
      })
    : undefined;
  return {
    email,
    password,
    user_id: ids.user_id,
    workspace_id: ids.workspace_id,
    products: products.map((p) => p.product_id),
    media,
    posts: posts.map((p) => p.post_id),
    ...(activity ? { activity } : {}),
    next: "log in at /login, connect an MCP client, and try list_products, list_content, list_media",
  };
}
