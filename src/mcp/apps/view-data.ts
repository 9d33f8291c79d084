/**
 * The view data of a tool result (`_meta["social-mcp/view"]`, src/mcp/views/common/data.ts), built after the
 * call for clients that show views (./client.ts), from the caller's own records: the records the call named
 * in its arguments or created, read again with the caller's owner scope. A tool whose result a view shows
 * (tools.yaml `_meta.ui.resourceUri`) has one builder here. Failed calls get none. Reading is done with the
 * root database after the call committed; a record gone in between (`not_found`) gives no view data.
 * The data follows the token's scopes, as the read tools would (`VIEW_SCOPES`): a post's or carousel's
 * content (title, caption, slide copy, media URLs, network previews of the caption) needs `read:content`,
 * a delivery's failure reason and scheduled time `read:schedules`, an automation `read:automations`, a run's
 * video URL `read:content` or `read:media`; what the token may not read is left out (null or empty), so a
 * view shows no more than the tools would give the same token.
 */
import type { AppContext } from "../../context.ts";
import { pick, pickOrNull } from "../../db/rows.ts";
import { getCarousel } from "../../domain/carousels/read.ts";
import { getPost } from "../../domain/content/posts.ts";
import { automationView, ownedAutomation } from "../../domain/automations/automations.ts";
import { type Owner, ownerOf } from "../../domain/owner.ts";
import { postMedia } from "../../domain/social/validate.ts";
import { ToolError } from "../../errors.ts";
import { FORMAT_SIZES } from "../../providers/ai-image/types.ts";
import type { Scope } from "../../scopes.ts";
import type { AuthContext, Envelope } from "../../tool-contract.ts";
import type {
  CarouselViewData,
  PostViewData,
  VideoViewData,
  ViewApproval,
  ViewData,
} from "../views/common/data.ts";
import { approvalOf, type MediaSigner, mediaSigner } from "./view-common.ts";
import { networkPreview, previewNetworks, viewPost } from "./view-post.ts";

/** One finished tool call, as the builders read it. */
export interface ViewCall {
  ctx: AppContext;
  owner: Owner;
  /** The call's (validated) arguments. */
  args: Record<string, any>;
  /** The envelope's `data`, when the call answered with some. */
  data: Record<string, any>;
  envelope: Envelope;
  signer: MediaSigner;
  /** The token's scopes: what the view may show (`VIEW_SCOPES`). */
  scopes: ReadonlySet<string>;
}

type Builder = (call: ViewCall) => Promise<ViewData | undefined>;

/**
 * The scope each part of the view data needs (the read tool that gives the same: get_post / get_carousel,
 * list_deliveries, get_automation, get_media).
 */
export const VIEW_SCOPES = {
  /** Titles, captions, slide copy, media URLs of posts and carousels, network previews of the caption. */
  content: "read:content",
  /** A delivery's failure reason and scheduled time. */
  deliveryDetails: "read:schedules",
  /** An automation's name and template. */
  automation: "read:automations",
} as const satisfies Record<string, Scope>;

const may = (call: ViewCall, scope: Scope) => call.scopes.has(scope);

/**
 * The carousel `postId` of the owner, with its caption, slide size, media and a pending approval; none
 * without `read:content` (its slides and caption are the post's content).
 */
async function carousel(call: ViewCall, postId: string): Promise<CarouselViewData | undefined> {
  const { ctx, owner, signer } = call;
  if (!may(call, VIEW_SCOPES.content)) return undefined;
  const c = await getCarousel(ctx.db, owner, postId);
  const post = await getPost(ctx.db, owner, postId);
  const ids = c.slides.map((s) => s.image_asset_id).filter((id): id is string => id !== null);
  const media = new Map(
    (await postMedia(ctx.db, { id: postId, type: "image", media_asset_ids: ids })).map((m) => [m.assetId, m]),
  );
  const size = FORMAT_SIZES[c.format] ?? FORMAT_SIZES.square!;
  return {
    view: "carousel",
    post_id: c.post_id,
    post_status: c.post_status,
    caption: post.caption,
    caption_provider: c.caption_provider,
    design_id: c.design_id,
    format: c.format,
    width: size.width,
    height: size.height,
    run: {
      run_id: c.latest_run.run_id,
      kind: c.latest_run.kind,
      status: c.latest_run.status,
      credits_charged: c.latest_run.credits_charged,
      error: c.latest_run.error,
    },
    slides: c.slides.map((s) => {
      const m = s.image_asset_id ? media.get(s.image_asset_id) : undefined;
      return {
        position: s.position,
        status: s.status,
        headline: s.headline,
        body: s.body,
        image: s.status === "ready" && m ? signer.sign(m) : null,
        error: s.error,
        provider: s.provider,
      };
    }),
    approval: await pendingApproval(call),
    media_expires_at: signer.expiresAt,
  };
}

/**
 * The owner's post `postId` with its network previews (null and none without `read:content`: the view then
 * lists the result's own deliveries); its deliveries' reasons and times only with `read:schedules`.
 */
async function post(call: ViewCall, postId: string | undefined): Promise<PostViewData> {
  const approval = await pendingApproval(call);
  const found =
    postId && may(call, VIEW_SCOPES.content)
      ? await viewPost(call.ctx, call.owner, postId, call.signer, may(call, VIEW_SCOPES.deliveryDetails))
      : undefined;
  const networks = found
    ? previewNetworks(approval?.destinations.map((d) => d.network) ?? [], found.post).map((n) =>
        networkPreview(n, found.post.caption ?? "", found.media),
      )
    : [];
  // A publish or schedule request waiting for approval shows the first comment it asks for.
  const asked = typeof call.args.first_comment === "string" ? call.args.first_comment : null;
  return {
    view: "post",
    post: found
      ? { ...found.post, first_comment: (approval ? asked : null) ?? found.post.first_comment }
      : null,
    networks,
    approval,
    media_expires_at: call.signer.expiresAt,
  };
}

/** The automation (and, for a run, its video and post) of a run_automation or get_automation_run result. */
async function video(
  call: ViewCall,
  automationId: string,
  run: Record<string, any> | null,
): Promise<VideoViewData> {
  const { ctx, owner, signer } = call;
  const content = may(call, VIEW_SCOPES.content);
  const automation = may(call, VIEW_SCOPES.automation)
    ? await ownedAutomation(ctx.db, owner, automationId)
        .then(automationView)
        .catch((err: unknown) => {
          if (err instanceof ToolError && err.code === "not_found") return null;
          throw err;
        })
    : null;
  const configuration = (automation?.configuration ?? {}) as Record<string, unknown>;
  let clip: VideoViewData["video"] = null;
  // The run's video is its post's media and a media asset: either read scope shows it.
  if (run?.video?.asset_id && (content || may(call, "read:media"))) {
    const [m] = await postMedia(ctx.db, {
      id: run.run_id,
      type: "video",
      media_asset_ids: [run.video.asset_id],
    });
    if (m) clip = signer.sign(m);
  }
  const produced =
    run?.post_id && content
      ? await viewPost(ctx, owner, run.post_id, signer, may(call, VIEW_SCOPES.deliveryDetails)).catch(
          () => undefined,
        )
      : undefined;
  return {
    view: "video",
    automation: automation && {
      automation_id: automation.automation_id,
      name: automation.name,
      kind: automation.kind,
      template_id: typeof configuration.template_id === "string" ? configuration.template_id : null,
    },
    run: run && {
      ...pick(run, ["run_id", "kind", "status", "trigger", "credits_charged", "created_at"]),
      ...pickOrNull(run, ["finished_at", "error"]),
    },
    video: clip,
    video_provider: clip && typeof run?.video?.provider === "string" ? run.video.provider : null,
    posts: produced ? [produced.post] : [],
    approval: await pendingApproval(call),
    media_expires_at: signer.expiresAt,
  };
}

/** The approval a review tool's result waits for, else null. */
function pendingApproval(call: ViewCall): Promise<ViewApproval | null> {
  return call.envelope.status === "approval_required"
    ? approvalOf(call.ctx, call.owner, call.envelope.operation_id)
    : Promise.resolve(null);
}

/** The builder of each tool whose results a view shows (tools.yaml `_meta.ui.resourceUri`). */
export const VIEW_BUILDERS: Readonly<Record<string, Builder>> = {
  generate_carousel: (c) => carousel(c, c.data.post_id),
  get_carousel: (c) => carousel(c, c.args.post_id),
  approve_carousel: (c) => carousel(c, c.args.post_id),
  get_post: (c) => post(c, c.args.post_id),
  create_text_post: (c) => post(c, c.data.post_id),
  create_image_post: (c) => post(c, c.data.post_id),
  publish_post: (c) => post(c, c.args.post_id),
  schedule_post: (c) => post(c, c.args.post_id),
  list_deliveries: (c) => post(c, c.args.post_id),
  run_automation: (c) => video(c, c.args.automation_id, null),
  get_automation_run: (c) => video(c, c.data.automation_id, c.data),
};

/** Statuses whose results a view shows (a failed call shows its error from the envelope alone). */
const SHOWN = new Set(["succeeded", "queued", "approval_required"]);

/**
 * The view data of the result `envelope` of `toolName` called with `args` by `auth`, or undefined when the
 * tool has no view, the call failed or a record it names is gone.
 * @throws what the database throws (the caller answers without view data and logs it).
 */
export async function buildViewData(
  ctx: AppContext,
  toolName: string,
  args: unknown,
  envelope: Envelope,
  auth: AuthContext,
): Promise<ViewData | undefined> {
  const build = VIEW_BUILDERS[toolName];
  if (!build || !SHOWN.has(envelope.status)) return undefined;
  try {
    return await build({
      ctx,
      owner: ownerOf(auth),
      args: (args ?? {}) as Record<string, any>,
      data: (envelope.data ?? {}) as Record<string, any>,
      envelope,
      signer: mediaSigner(ctx),
      scopes: auth.scopes,
    });
  } catch (err) {
    if (err instanceof ToolError && err.code === "not_found") return undefined;
    throw err;
  }
}
