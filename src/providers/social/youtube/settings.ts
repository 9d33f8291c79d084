/**
 * The per-account YouTube defaults chosen on /settings/social (service spec 1.11: what a tool cannot
 * express), and their reading by the publisher: the video's visibility (`status.privacyStatus`) and the
 * audience declaration (`status.selfDeclaredMadeForKids`, COPPA) of `videos.insert`
 * (https://developers.google.com/youtube/v3/docs/videos#status).
 *
 * Uploads from an API project that Google has not audited are locked to private whatever is chosen
 * (https://developers.google.com/youtube/v3/docs/videos/insert).
 */
import type { AccountSettingField } from "../network.ts";

export const PRIVACY_STATUSES = ["private", "unlisted", "public"] as const;
export type PrivacyStatus = (typeof PRIVACY_STATUSES)[number];
/** Visibility while the user has not chosen one: nothing goes public without a choice. */
export const DEFAULT_PRIVACY: PrivacyStatus = "private";

/** The fields shown for every YouTube account (static: nothing to read from the network). */
export const YOUTUBE_SETTING_FIELDS: readonly AccountSettingField[] = [
  {
    key: "privacy",
    label: "Video visibility",
    options: [
      ["private", "Private"],
      ["unlisted", "Unlisted"],
      ["public", "Public"],
    ],
    defaultValue: DEFAULT_PRIVACY,
  },
  {
    key: "made_for_kids",
    label: "Made for kids",
    options: [
      ["no", "No, not made for kids"],
      ["yes", "Yes, made for kids"],
    ],
    defaultValue: "no",
  },
];

/** The `status` part of `videos.insert` from an account's saved settings (defaults where unset or unknown). */
export function videoStatus(settings: Record<string, unknown>): {
  privacyStatus: PrivacyStatus;
  selfDeclaredMadeForKids: boolean;
} {
  const privacy = settings.privacy;
  return {
    privacyStatus: (PRIVACY_STATUSES as readonly unknown[]).includes(privacy)
      ? (privacy as PrivacyStatus)
      : DEFAULT_PRIVACY,
    selfDeclaredMadeForKids: settings.made_for_kids === "yes",
  };
}
