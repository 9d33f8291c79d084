/** The product page URL of create_product and fetch_product_details, checked before anything is fetched. */
import { ToolError } from "../../errors.ts";
import { checkUrlSyntax } from "../../providers/fetch/address-policy.ts";
import type { ToolContext } from "../../tool-contract.ts";

/**
 * `raw` as a URL the guarded fetch may try: http(s), port 80 or 443 (or the test-only loopback port), no
 * credentials (src/providers/fetch/address-policy.ts); its addresses are checked when it is fetched.
 * @throws ToolError validation_failed with a stable `details.reason` (`scheme`, `port`).
 */
export function checkedProductUrl(raw: string, ctx: ToolContext): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolError("validation_failed", "product_url is not a valid URL", { reason: "scheme" });
  }
  const reason = checkUrlSyntax(url, ctx.app.config.fetchAllowLoopbackPort);
  if (reason) {
    throw new ToolError(
      "validation_failed",
      "product_url must be an http(s) URL on port 80 or 443 without credentials",
      { reason },
    );
  }
  return url;
}
