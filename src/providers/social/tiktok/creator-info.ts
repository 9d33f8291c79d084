/**
 * `POST /v2/post/publish/creator_info/query/` (20 requests per minute per token): who is posting and what
 * they may post now. The review page calls it each time it renders (networks.md 2.1 "Required UX for the
 * Direct Post audit", https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info).
 */
import type { SocialHttp } from "../http.ts";
import { TikTokRejectedError, tiktokRequest } from "./api.ts";

/** The creator's posting options as TikTok answers them. */
export interface CreatorInfo {
  nickname: string;
  username: string;
  avatarUrl: string | null;
  /** e.g. PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY. */
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  /** Longest video the creator may post, seconds. */
  maxVideoPostDurationSec: number;
}

/** `canPost: false` when TikTok says the creator cannot post now (`reason` is safe to show). */
export type CreatorInfoResult =
  | { canPost: true; info: CreatorInfo }
  | { canPost: false; code: string; reason: string };

/** What the user is told for the "cannot post now" codes. */
const CANNOT_POST: Record<string, string> = {
  spam_risk_too_many_posts: "This TikTok account has reached its daily posting limit. Try again later.",
  spam_risk_user_banned_from_posting: "TikTok does not allow this account to post right now.",
  reached_active_user_cap:
    "This app has reached TikTok's daily limit of posting creators. Try again tomorrow.",
};

/**
 * Fetches the creator info fresh.
 * @throws NetworkAuthError (reconnect) | NetworkRateLimitError | NetworkTransientError
 */
export async function queryCreatorInfo(
  http: SocialHttp,
  accessToken: string,
  signal?: AbortSignal,
): Promise<CreatorInfoResult> {
  try {
    const r = await tiktokRequest<{
      creator_nickname?: string;
      creator_username?: string;
      creator_avatar_url?: string;
      privacy_level_options?: string[];
      comment_disabled?: boolean;
      duet_disabled?: boolean;
      stitch_disabled?: boolean;
      max_video_post_duration_sec?: number;
    }>(http, { method: "POST", path: "/v2/post/publish/creator_info/query/", json: {}, accessToken, signal });
    const d = r.data;
    return {
      canPost: true,
      info: {
        nickname: d.creator_nickname ?? "",
        username: d.creator_username ?? "",
        avatarUrl: d.creator_avatar_url ?? null,
        privacyLevelOptions: d.privacy_level_options ?? [],
        commentDisabled: d.comment_disabled === true,
        duetDisabled: d.duet_disabled === true,
        stitchDisabled: d.stitch_disabled === true,
        maxVideoPostDurationSec: d.max_video_post_duration_sec ?? 0,
      },
    };
  } catch (err) {
    if (err instanceof TikTokRejectedError) {
      return {
        canPost: false,
        code: err.code,
        reason:
          CANNOT_POST[err.code] ?? `TikTok says this account cannot post now (${err.code}). Try again later.`,
      };
    }
    throw err;
  }
}

/**
 * The creator info of a sandbox TikTok account (no TIKTOK_CLIENT_ID configured): every privacy level, no
 * interaction turned off, 10 minutes of video; the page labels the account "Sandbox".
 */
export function sandboxCreatorInfo(handle: string): CreatorInfo {
  return {
    nickname: handle,
    username: handle,
    avatarUrl: null,
    privacyLevelOptions: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"],
    commentDisabled: false,
    duetDisabled: false,
    stitchDisabled: false,
    maxVideoPostDurationSec: 600,
  };
}
