/**
 * The destinations a carousel is generated for (generate_carousel `social_account_ids`, DESIGN.md section 4:
 * fail before spending credits). Before any credit is charged, the carousel the call would make (its slide
 * count, its format's pixel size, the agent's caption when given) is checked against each destination's row of
 * the network-rule table (src/providers/social/rules.ts), as publish_post and schedule_post will check the
 * finished post; a destination that would refuse it refuses the call, naming the rule (for example "X accepts
 * at most 4 in one post"). The destinations are kept on the run, so get_carousel's `next` names them.
 */
import type { Knex } from "../../db/knex.ts";
import { ToolError } from "../../errors.ts";
import { FORMAT_SIZES } from "../../providers/ai-image/types.ts";
import { checkNetworkRules, type RuleMedia } from "../../providers/social/rule-check.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import type { Owner } from "../owner.ts";
import { resolveDestinations } from "../social/accounts.ts";

/** The carousel a generation would make, as the rule checks see it. */
export interface PlannedCarousel {
  slideCount: number;
  format: string;
  /** The agent's caption; a generated one is checked when the post is published or scheduled. */
  caption?: string | undefined;
}

/** The slides of `planned` as rule media: JPEG images of the format's size (their bytes are not known yet). */
function plannedMedia(planned: PlannedCarousel): RuleMedia[] {
  const size = FORMAT_SIZES[planned.format] ?? FORMAT_SIZES.square!;
  return Array.from({ length: planned.slideCount }, () => ({
    kind: "image" as const,
    mime: "image/jpeg",
    bytes: 0,
    width: size.width,
    height: size.height,
    durationSeconds: null,
  }));
}

/**
 * Checks `ids` (owned, connected, not TikTok: resolveDestinations) against the planned carousel.
 * @returns the ids, in order.
 * @throws ToolError not_found (at `/social_account_ids/i`) / validation_failed (TikTok, or a rule a
 *   destination refuses: the message names each destination and rule, `details.violations` lists them) /
 *   account_setup_required (an account to reconnect).
 */
export async function assertCarouselFits(
  db: Knex,
  owner: Owner,
  ids: readonly string[],
  planned: PlannedCarousel,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const accounts = await resolveDestinations(db, owner, ids);
  const media = plannedMedia(planned);
  const violations = accounts.flatMap((a) =>
    checkNetworkRules(a.network, { caption: planned.caption ?? "", media })
      // A generated caption is written later; an empty one is not this call's problem.
      .filter((v) => planned.caption !== undefined || v.rule !== "caption_length")
      .map((v) => ({
        social_account_id: a.social_account_id,
        network: a.network,
        display_name: a.display_name,
        ...v,
      })),
  );
  if (violations.length === 0) return accounts.map((a) => a.social_account_id);
  const sentences = violations.map(
    (v) => `${NETWORK_RULES[v.network].label} ("${v.display_name}"): ${v.message}`,
  );
  throw new ToolError(
    "validation_failed",
    `the ${planned.slideCount}-slide ${planned.format} carousel would be refused by ${sentences.join("; ")}. Nothing was charged: change slide_count, format or caption, or leave that destination out.`,
    {
      violations: violations.map((v) => ({
        social_account_id: v.social_account_id,
        network: v.network,
        rule: v.rule,
        message: v.message,
      })),
    },
  );
}
