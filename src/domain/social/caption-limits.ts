/**
 * Caption-limit warnings for the approval pages (issue 22 point 8): one plain sentence per destination whose
 * caption limit the caption exceeds, counted as the network counts it (src/providers/social/rules.ts
 * `captionLength`: X's weighted length, code points elsewhere). publish_post and schedule_post refuse such a
 * destination at the call (./validate.ts); the warnings matter where no destination is chosen yet
 * (approve_carousel: the workspace's connected accounts).
 */
import { captionLength, NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Network } from "../../providers/social/types.ts";

/** The warnings for `caption` on `accounts` (display name and network), in the accounts' order. */
export function captionWarnings(
  caption: string,
  accounts: ReadonlyArray<{ display_name: string; network: Network }>,
): string[] {
  const out: string[] = [];
  for (const a of accounts) {
    const rules = NETWORK_RULES[a.network];
    const length = captionLength(a.network, caption);
    if (length > rules.caption.maxLength)
      out.push(
        `The caption is ${length.toLocaleString("en-US")} characters; ${rules.label} allows ${rules.caption.maxLength.toLocaleString("en-US")}, so it cannot go to “${a.display_name}” (${rules.label}) as it is.`,
      );
  }
  return out;
}
