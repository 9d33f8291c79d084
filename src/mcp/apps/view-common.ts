/**
 * What every view's data needs: media as short-lived signed URLs on the service's origin
 * (src/domain/media/public-url.ts, served by src/web/media-public.ts), and the plain-word description of a
 * pending approval (the one its approval page shows, service spec 4.4), read from the caller's own
 * operation.
 */
import type { AppContext } from "../../context.ts";
import type { Owner } from "../../domain/owner.ts";
import { loadOperation, openDescription } from "../../domain/operations/store.ts";
import { signedMediaUrl } from "../../domain/media/public-url.ts";
import type { PostMedia } from "../../domain/social/validate.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";
import { isNetwork } from "../../providers/social/types.ts";
import type { ViewApproval, ViewMedia } from "../views/common/data.ts";

/** The name of `network` as people write it ("Instagram"), or the value itself when it is not a network. */
export function networkLabel(network: string): string {
  return isNetwork(network) ? NETWORK_RULES[network].label : network;
}

/** Lifetime of the media URLs a view gets, seconds (15 minutes; the views refresh them through a read tool). */
export const VIEW_MEDIA_TTL = 900;

/** Signs media for one view answer: `sign` makes a ViewMedia, `expiresAt` says until when (ISO 8601). */
export interface MediaSigner {
  sign(
    media: Pick<PostMedia, "assetId" | "kind" | "mime" | "width" | "height" | "durationSeconds">,
  ): ViewMedia;
  expiresAt: string;
}

/** A signer valid VIEW_MEDIA_TTL seconds from the app clock's now. */
export function mediaSigner(ctx: AppContext): MediaSigner {
  const now = ctx.clock.now();
  return {
    expiresAt: new Date(now.getTime() + VIEW_MEDIA_TTL * 1000).toISOString(),
    sign: (m) => ({
      asset_id: m.assetId,
      kind: m.kind,
      mime_type: m.mime,
      url: signedMediaUrl(ctx.config.publicBaseUrl, ctx.keys.encryptionKeys, m.assetId, now, VIEW_MEDIA_TTL),
      width: m.width,
      height: m.height,
      duration_seconds: m.durationSeconds,
    }),
  };
}

/**
 * What the owner's pending operation `operationId` will do, from its sealed approval description; null
 * when the operation is not the owner's or has no description.
 */
export async function approvalOf(
  ctx: AppContext,
  owner: Owner,
  operationId: string | undefined,
): Promise<ViewApproval | null> {
  if (!operationId) return null;
  const op = await loadOperation(ctx.db, operationId);
  if (!op || op.user_id !== owner.userId || op.workspace_id !== owner.workspaceId) return null;
  const d = openDescription(ctx, op);
  if (!d) return null;
  return {
    summary: d.summary,
    destinations: d.destinations.map((x) => ({
      name: x.name,
      network: x.network,
      label: networkLabel(x.network),
    })),
    when: d.when ?? null,
    settings: (d.settings ?? []).map((s) => ({ label: s.label, value: s.value })),
    expires_at: op.approval_expires_at ? new Date(op.approval_expires_at).toISOString() : null,
  };
}
