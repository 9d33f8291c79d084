/**
 * Status badges and network labels of the browser pages: the status in words with a tone
 * (`<span class="badge" data-tone="ok|wait|bad|off">`; the stylesheet adds a symbol per tone and a colour that
 * only repeats the words, src/web/assets/app.css) and the network's name with its colour dot.
 * The words follow the service spec's states (2.7, 3.1): social accounts, posts, schedules and deliveries.
 */
import { NETWORK_RULES } from "../providers/social/rules.ts";
import { isNetwork } from "../providers/social/types.ts";
import { html, type RawHtml } from "./html.ts";

/** ok: done or healthy; wait: on its way or waiting for someone; bad: failed, needs action; off: inactive. */
export type Tone = "ok" | "wait" | "bad" | "off";

type Words = Record<string, readonly [words: string, tone: Tone]>;

/** Social account statuses (docs/social.md; older rows may say expired or error). */
export const ACCOUNT_STATUS_WORDS: Words = {
  connected: ["Connected", "ok"],
  needs_reconnect: ["Needs reconnecting", "bad"],
  expired: ["Expired: reconnect", "bad"],
  error: ["Error: reconnect", "bad"],
  disconnected: ["Disconnected", "off"],
};

/** Post statuses (service spec 2.7). */
export const POST_STATUS_WORDS: Words = {
  draft: ["Draft", "off"],
  needs_review: ["Needs review", "wait"],
  approved: ["Approved", "ok"],
  scheduled: ["Scheduled", "wait"],
  publishing: ["Publishing", "wait"],
  published: ["Published", "ok"],
  failed: ["Failed", "bad"],
};

/** Schedule statuses (service spec 2.7). */
export const SCHEDULE_STATUS_WORDS: Words = {
  scheduled: ["Scheduled", "wait"],
  publishing: ["Publishing", "wait"],
  published: ["Published", "ok"],
  failed: ["Failed", "bad"],
  canceled: ["Canceled", "off"],
};

/** Delivery statuses (service spec 2.7). */
export const DELIVERY_STATUS_WORDS: Words = {
  pending: ["Waiting", "wait"],
  uploading: ["Uploading", "wait"],
  processing: ["The network is processing it", "wait"],
  outcome_unknown: ["Checking with the network", "wait"],
  needs_review: ["Waiting for your TikTok review", "wait"],
  published: ["Published", "ok"],
  failed: ["Failed", "bad"],
};

/** A badge with `words` in `tone`. */
export function badge(words: string, tone: Tone): RawHtml {
  return html`<span class="badge" data-tone="${tone}">${words}</span>`;
}

/** The badge of `status` in `table` (an unknown status shows as itself, tone off), with `data-status`. */
export function statusBadge(table: Words, status: string): RawHtml {
  const [words, tone] = table[status] ?? [status, "off"];
  return html`<span class="badge" data-tone="${tone}" data-status="${status}">${words}</span>`;
}

/** The network's name (NETWORK_RULES label) with its colour dot; an unknown network shows as its code. */
export function networkLabel(network: string): RawHtml {
  const label = isNetwork(network) ? NETWORK_RULES[network].label : network;
  return html`<span class="network" data-network="${network}">${label}</span>`;
}
