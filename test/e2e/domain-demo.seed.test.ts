import assert from "node:assert/strict";
import { test } from "node:test";
import { imageSize } from "image-size";
import { runAdmin } from "../../src/cli/admin.ts";
import { verifyPassword } from "../../src/domain/account/accounts.ts";
import { handler as getMedia } from "../../src/tools/media/get_media.ts";
import { handler as listMedia } from "../../src/tools/media/list_media.ts";
import { handler as searchMedia } from "../../src/tools/media/search_media.ts";
import { handler as listContent } from "../../src/tools/content/list_content.ts";
import { handler as searchContent } from "../../src/tools/content/search_content.ts";
import { handler as listProducts } from "../../src/tools/products/list_products.ts";
import { handler as listProductAssets } from "../../src/tools/products/list_product_assets.ts";
import { startTestApp } from "../helpers/app.ts";
import { toolCtx } from "../domain/world.ts";

const app = await startTestApp({ queue: false });

test("admin demo seeds a user whose read tools all return data", async () => {
  process.env.MEDIA_DIR = app.ctx.config.media.dir;
  const out = (await runAdmin(app.ctx.db, ["demo", "--email", "demo@example.test"])) as Record<string, any>;
  delete process.env.MEDIA_DIR;
  assert.equal(out.email, "demo@example.test");
  assert.equal(await verifyPassword(app.ctx.db, out.email, out.password), out.user_id);
  const ctx = toolCtx(app, { user_id: out.user_id, workspace_id: out.workspace_id });
  const products = await listProducts.execute({}, ctx);
  assert.equal(products.data.items.length, 3);
  assert.equal(
    (await listProductAssets.execute({ product_id: products.data.items[0]!.product_id }, ctx)).data.items
      .length,
    1,
  );
  assert.equal((await listContent.execute({}, ctx)).data.items.length, 4);
  assert.ok((await searchContent.execute({ query: "summer sale" }, ctx)).data.items.length >= 1);
  const media = await listMedia.execute({}, ctx);
  assert.equal(media.data.items.length, 4);
  assert.ok((await searchMedia.execute({ query: "mug" }, ctx)).data.items.length >= 1);
  const one = await getMedia.execute({ asset_id: media.data.items[0]!.asset_id }, ctx);
  assert.equal(one.data.width, 320);
  // The stored file is a real JPEG of the recorded size.
  const row = await app.ctx.db("media_assets").where({ id: one.data.asset_id }).first();
  const { stream } = await app.ctx.providers.storage.read(row.storage_key);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  const bytes = Buffer.concat(chunks);
  assert.equal(bytes.length, one.data.bytes);
  assert.deepEqual(imageSize(bytes), { height: 320, width: 320, type: "jpg" });
});
