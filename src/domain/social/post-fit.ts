/**
 * How a post goes out to each destination where the network changes its shape, in plain words for check_post,
 * the approval page and the post view (DESIGN.md section 4: what the user approves is what they saw):
 * - a LinkedIn carousel goes as a document, one PDF page per image, unless the account's `linkedin_carousel`
 *   is `images` (src/providers/social/linkedin/documents.ts `sendsAsDocument`): "document, 6 pages";
 * - images to a network without an alt text field (rules.ts `altText`, e.g. TikTok) go without their alt
 *   text: "no alt text";
 * - a described video to a network without a field for a video's description (rules.ts `videoDescription`:
 *   only X has one) goes without it: "no video description".
 */
import type { Knex } from "../../db/knex.ts";
import { sendsAsDocument } from "../../providers/social/linkedin/documents.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Network } from "../../providers/social/types.ts";

/** One media item of a post, as far as its shape at the network goes. */
export interface FitMedia {
  kind: "image" | "video";
  /** An image's alt text or a video's description, when known (absent: not known, null: none). */
  altText?: string | null | undefined;
}

/**
 * The shape a post of `media` takes at `network` for an account with `settings`, when the network changes it:
 * "document, 6 pages" (a LinkedIn document post); null when the post goes as it is.
 */
export function destinationFormat(
  network: Network,
  settings: Record<string, unknown>,
  media: readonly FitMedia[],
): string | null {
  if (network === "linkedin" && sendsAsDocument(media, settings)) return `document, ${media.length} pages`;
  return null;
}

/**
 * "no alt text" when a post with images goes to a network that takes no alt text; "no video description"
 * when a video with a description goes to a network that takes none; null otherwise.
 */
export function altTextFit(network: Network, media: readonly FitMedia[]): string | null {
  if (media.some((m) => m.kind === "video" && m.altText) && !NETWORK_RULES[network].videoDescription)
    return "no video description";
  if (!media.some((m) => m.kind === "image")) return null;
  return NETWORK_RULES[network].altText ? null : "no alt text";
}

/**
 * What each destination makes of a post of `media`, joined ("document, 6 pages"; "no alt text"), by account
 * id; accounts whose network takes the post as it is are absent. Reads the accounts' settings.
 */
export async function destinationFits(
  db: Knex,
  accounts: ReadonlyArray<{ social_account_id: string; network: Network }>,
  media: readonly FitMedia[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (accounts.length === 0) return out;
  const rows: Array<{ id: string; settings: Record<string, unknown> | null }> = await db("social_accounts")
    .whereIn(
      "id",
      accounts.map((a) => a.social_account_id),
    )
    .select("id", "settings");
  const settings = new Map(rows.map((r) => [r.id, r.settings ?? {}]));
  for (const a of accounts) {
    const parts = [
      destinationFormat(a.network, settings.get(a.social_account_id) ?? {}, media),
      altTextFit(a.network, media),
    ].filter((p): p is string => p !== null);
    if (parts.length > 0) out.set(a.social_account_id, parts.join("; "));
  }
  return out;
}
