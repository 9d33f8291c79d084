/**
 * delete_post (review, service spec 3.1): `describe` checks ownership and labels the post with a caption
 * excerpt; with `remove_from_networks` it lists every published copy and what will happen to it
 * (src/domain/social/removal.ts). `execute` soft-deletes the post after approval, cancels its pending
 * schedules and stops its deliveries that are not published yet (nothing more is sent to a network); with
 * `remove_from_networks` it then deletes each published copy where the network's API can, and says per copy
 * `removed`, `stays_live` or `failed`. Idempotent.
 */
import type { ToolHandlers } from "../../../generated/tool-types.ts";
import { ownerOf } from "../../domain/owner.ts";
import { deletePost, getPost, postLabel } from "../../domain/content/posts.ts";
import { removalPlan, removeCopies } from "../../domain/social/removal.ts";
import { NETWORK_RULES } from "../../providers/social/rules.ts";

export const handler: ToolHandlers["delete_post"] = {
  async describe(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const post = await getPost(ctx.db, owner, input.post_id);
    const label = postLabel(post);
    const resources = [{ kind: "post", id: post.post_id, label }];
    if (!input.remove_from_networks)
      return {
        summary: `Delete the ${post.type} post “${label}”. Deliveries not published yet are stopped; content already published on a social network stays there.`,
        resources,
        destinations: [],
      };
    const plan = await removalPlan(
      ctx.db,
      owner,
      post.post_id,
      (network, mode) => ctx.app.providers.networks.forAccount(network, mode).remover !== undefined,
    );
    const removed = plan.filter((p) => p.action === "remove");
    const live = plan.filter((p) => p.action === "stays_live");
    const names = (items: typeof plan) =>
      [...new Set(items.map((p) => NETWORK_RULES[p.network].label))].join(", ");
    const copies =
      plan.length === 0
        ? "It has no published copies."
        : `${removed.length > 0 ? `Its published copies on ${names(removed)} are deleted there.` : ""}${live.length > 0 ? `${removed.length > 0 ? " " : ""}Its copies on ${names(live)} stay live (this service cannot delete them there): remove them by hand.` : ""}`;
    return {
      summary: `Delete the ${post.type} post “${label}” and take it down from the networks. Deliveries not published yet are stopped. ${copies}`,
      resources,
      destinations: [],
      removals: plan.map((p) => ({
        network: p.network,
        account: p.account,
        handle: p.handle,
        post_url: p.post_url,
        action: p.action,
      })),
    };
  },
  async execute(input, ctx) {
    const owner = ownerOf(ctx.auth);
    const result = await deletePost(ctx.db, owner, input.post_id, ctx.app.clock.now());
    const removals = input.remove_from_networks
      ? await removeCopies(ctx.app, owner, result.post_id, ctx.signal)
      : [];
    return { data: { post_id: result.post_id, deleted: true, removals } };
  },
};
