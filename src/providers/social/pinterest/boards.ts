/**
 * The Pinterest boards of an account, and the per-account board choice shown on /settings/social: every
 * Pin is saved to a board (`board_id` of `POST /v5/pins`), which the user picks once per account.
 *
 * `GET /v5/boards?page_size=&bookmark=` -> `{items: [{id, name, privacy, ...}], bookmark}` pages through the
 * boards the token's account owns (https://developers.pinterest.com/docs/api/v5/boards-list).
 */
import type { BoardsPage } from "./contract.ts";
import type { SocialHttp } from "../http.ts";
import type { AccountSettingField } from "../network.ts";
import { pinterestRequest } from "./api.ts";

/** The account setting that holds the chosen board id. */
export const BOARD_SETTING = "board_id";
/** Most boards listed (and offered on the settings page: the field's limit). */
export const MAX_BOARDS = 250;

export interface PinterestBoard {
  id: string;
  name: string;
  /** PUBLIC | PROTECTED | SECRET. */
  privacy: string;
}

/**
 * Lists the account's boards, following `bookmark` until there is none or `MAX_BOARDS` were read.
 * @throws as `pinterestRequest` (../network.ts errors).
 */
export async function listBoards(
  http: SocialHttp,
  accessToken: string,
  signal?: AbortSignal,
): Promise<PinterestBoard[]> {
  const boards: PinterestBoard[] = [];
  let bookmark: string | undefined;
  do {
    const page = await pinterestRequest<Partial<BoardsPage>>(http, {
      method: "GET",
      path: "/boards",
      query: { page_size: String(MAX_BOARDS - boards.length), bookmark },
      accessToken,
      signal,
    });
    for (const b of page.items ?? [])
      if (b.id && boards.length < MAX_BOARDS)
        boards.push({ id: String(b.id), name: b.name ?? String(b.id), privacy: b.privacy ?? "PUBLIC" });
    bookmark = page.bookmark || undefined;
  } while (bookmark && boards.length < MAX_BOARDS);
  return boards;
}

/**
 * The board choice of /settings/social: one option per board (secret and protected boards say so), the only
 * board as the default when there is exactly one, no default otherwise (the user must choose).
 */
export function boardField(boards: readonly PinterestBoard[]): AccountSettingField {
  return {
    key: BOARD_SETTING,
    label: "Pinterest board",
    options: boards.map((b) => [
      b.id,
      b.privacy === "PUBLIC" ? b.name : `${b.name} (${b.privacy.toLowerCase()})`,
    ]),
    defaultValue: boards.length === 1 ? boards[0]!.id : undefined,
  };
}
