/** list_products: the caller's products in the consented workspace, newest first (DESIGN.md section 4). */
import type { ToolInputs, ToolOutputs } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { listProducts } from "../../domain/products/products.ts";
import type { ToolHandler } from "../../tool-contract.ts";

export const handler: ToolHandler<ToolInputs["list_products"], ToolOutputs["list_products"]> = {
  async execute(input, ctx) {
    const page = await listProducts(ctx.db, ownerOf(ctx.auth), {
      limit: input.limit,
      cursor: input.cursor,
      query: input.query,
    });
    return { data: page as ToolOutputs["list_products"] };
  },
};
