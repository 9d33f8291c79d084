/**
 * Per-account publishing defaults shown and saved on /settings/social (service spec 1.11: what a tool
 * cannot express): the static choices of a network (`STATIC_ACCOUNT_SETTINGS`, e.g. whether Instagram Reels
 * also appear in the feed) and the ones the network's adapter reads from the network when the page is
 * shown (`NetworkAdapter.accountSettings`, e.g. the Pinterest boards or the YouTube privacy).
 */
import type { AppContext } from "../../context.ts";
import {
  type AccountSettingField,
  type AdapterAccount,
  NetworkError,
} from "../../providers/social/network.ts";
import { LINKEDIN_CAROUSEL_SETTING } from "../../providers/social/linkedin/documents.ts";
import { BOARD_SETTING } from "../../providers/social/pinterest/boards.ts";
import type { Network } from "../../providers/social/types.ts";
import type { OpenedAccount } from "./accounts.ts";

/** Static per-account defaults by network (the adapter's own fields are added to these). */
export const STATIC_ACCOUNT_SETTINGS: Partial<Record<Network, AccountSettingField[]>> = {
  instagram: [
    {
      key: "share_to_feed",
      label: "Reels also appear in the feed",
      options: [
        ["true", "Yes"],
        ["false", "No, only in the Reels tab"],
      ],
    },
  ],
  facebook: [
    {
      key: "video_as",
      label: "Publish videos as",
      options: [
        ["video", "Page video"],
        ["reel", "Reel"],
      ],
    },
  ],
  linkedin: [
    {
      // Unset means `document`: src/providers/social/linkedin/documents.ts `sendsAsDocument`.
      key: LINKEDIN_CAROUSEL_SETTING,
      label: "Publish carousels as",
      defaultValue: "document",
      options: [
        ["document", "Document (PDF, a page per slide)"],
        ["images", "Images (multi-image post)"],
      ],
    },
  ],
};

/**
 * Settings a live account must have saved before a post can be published or scheduled to it (service spec 7
 * `account_setup_required`, checked at the call by ./validate.ts `assertAccountSetup`): the Pinterest board
 * its Pins are saved to (chosen on /settings/social; set at connect when the account has a single board).
 * Sandbox accounts need none.
 */
export const REQUIRED_ACCOUNT_SETTINGS: Partial<Record<Network, Array<{ key: string; what: string }>>> = {
  pinterest: [{ key: BOARD_SETTING, what: "board" }],
};

/** The adapter's view of an opened account (tokens opened; never returned to a tool or a page). */
export function adapterAccount(account: OpenedAccount): AdapterAccount {
  return {
    id: account.id,
    network: account.network,
    networkAccountId: account.networkAccountId ?? "",
    handle: account.handle,
    tokens: account.tokens,
    settings: account.settings,
    metadata: account.metadata,
  };
}

/**
 * The setting fields of one connected account: the static ones of its network, then the adapter's.
 * @returns `fields`, and `error` (a safe sentence) when the network could not be asked now; the static
 *   fields are still returned then.
 */
export async function accountSettingFields(
  app: AppContext,
  account: OpenedAccount,
  signal?: AbortSignal,
): Promise<{ fields: AccountSettingField[]; error?: string }> {
  const fields = [...(STATIC_ACCOUNT_SETTINGS[account.network] ?? [])];
  const adapter = app.providers.networks.forAccount(account.network, account.mode);
  if (!adapter.accountSettings || account.status !== "connected") return { fields };
  try {
    fields.push(...(await adapter.accountSettings(adapterAccount(account), signal)));
    return { fields };
  } catch (err) {
    const reason = err instanceof NetworkError ? err.message : "the network did not answer";
    app.log.warn({ social_account_id: account.id, err: { name: (err as Error)?.name } }, "account settings");
    return { fields, error: `Could not read the choices from the network: ${reason}` };
  }
}
