/** list_products: the caller's products in the consented workspace, newest first (DESIGN.md section 4). */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { listProducts } from "../../domain/products/products.ts";

export const handler: ToolHandlers["list_products"] = {
  async execute(input, ctx) {
    return { data: await listProducts(ctx.db, ownerOf(ctx.auth), input) };
  },
};
