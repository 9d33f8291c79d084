/**
 * Pacing of the analytics sync's calls to one network (service spec 6.3; the networks' rate limits,
 * networks.md "Lessons": per-provider pacing, honour Retry-After): calls are made one at a time by the
 * caller, with a pause of `pauseMs` before every call but the first; a `NetworkRateLimitError` is waited
 * out (`retryAfterSeconds`) and the same call tried again, at most `retries` times. A network that asks to
 * wait longer than `maxWaitSeconds` (or is still limited after the retries) is stopped for this run: every
 * later call throws `SyncStopped` with the reason, and the sync marks what is left partial.
 * A successful answer can also say the budget is spent (X's `x-rate-limit-remaining: 0`, Meta's usage
 * headers at their limit; src/providers/social/usage.ts): its result is kept, and the next call waits until
 * the reset when that is within `maxWaitSeconds`, else the pacer stops as above (scope token or app, as the
 * header says) and tells `onStop` at once.
 */
import { setTimeout as delay } from "node:timers/promises";
import { NetworkRateLimitError } from "../../providers/social/network.ts";
import { observeUsage, type UsageStop } from "../../providers/social/usage.ts";

/** How often one call is tried again after a rate limit answer. */
export const RATE_LIMIT_RETRIES = 3;

/** The network was stopped for this sync run (rate limited for too long); `message` is the safe reason. */
export class SyncStopped extends Error {
  override name = "SyncStopped";
}

export interface PacerOptions {
  /** Pause before every call but the first, milliseconds (`ANALYTICS_SYNC_PAUSE_MS`). */
  pauseMs: number;
  /** The longest Retry-After waited out, seconds (`ANALYTICS_SYNC_MAX_WAIT_SECONDS`). */
  maxWaitSeconds: number;
  /** Retries of one call after rate limit answers (default RATE_LIMIT_RETRIES). */
  retries?: number;
  /** Aborts the waits (worker shutdown). */
  signal?: AbortSignal | undefined;
  /** The clock of the stop's `until` (default the system clock). */
  now?: (() => Date) | undefined;
  /**
   * Spends the budget of one call before it is made (YouTube's quota units); a stop it returns stops the
   * pacer as a rate limit would, without the call.
   */
  charge?: (() => Promise<PacerStop | undefined>) | undefined;
  /** Starts stopped with this reason (the app was stopped by another job: no call is made). */
  stopped?: string | undefined;
  /**
   * Told the moment the pacer stops on a network's answer (a rate limit error, or a successful answer whose
   * headers say the budget is spent), e.g. to share an app stop with the other jobs before this one ends.
   */
  onStop?: ((stop: PacerStop) => Promise<void>) | undefined;
}

/** Why the pacer stopped: the reason, whose budget the network said ran out, and until when. */
export interface PacerStop {
  reason: string;
  scope: "token" | "app";
  until: Date;
}

export interface NetworkPacer {
  /** The reason this network was stopped for the run, once it was. */
  readonly stopped: string | undefined;
  /** The network's stop answer (scope: token or app; until when), when a rate limit stopped it. */
  readonly stop: PacerStop | undefined;
  /**
   * Runs `call` after the pause, waiting out rate limits as above.
   * @throws SyncStopped once the network is stopped; whatever else `call` throws.
   */
  run<T>(call: () => Promise<T>): Promise<T>;
}

/** A pacer for one network's calls; `label` names the network in the stop reason. */
export function networkPacer(label: string, options: PacerOptions): NetworkPacer {
  const retries = options.retries ?? RATE_LIMIT_RETRIES;
  const sleep = (ms: number) =>
    ms > 0 ? delay(ms, undefined, { signal: options.signal }) : Promise.resolve();
  let calls = 0;
  let stopped: string | undefined = options.stopped;
  let stop: PacerStop | undefined;
  /** Epoch ms before which the next call is not made (a budget a successful answer said is spent). */
  let resumeAt = 0;
  const nowMs = () => (options.now?.() ?? new Date()).getTime();
  const stopFor = async (reason: string, scope: "token" | "app", seconds: number) => {
    stopped = reason;
    stop = { reason, scope, until: new Date(nowMs() + seconds * 1000) };
    await options.onStop?.(stop);
  };
  /** A successful answer said the budget is spent: wait for it, or stop when that is too long. */
  const spentOnSuccess = async (u: UsageStop) => {
    if (u.seconds <= options.maxWaitSeconds) {
      resumeAt = Math.max(resumeAt, nowMs() + u.seconds * 1000);
      return;
    }
    const whose = u.scope === "app" ? "the app's" : "this account's";
    await stopFor(
      `${label} said ${whose} read budget is spent (${u.source}; back in ${u.seconds} s); the next sync reads it again`,
      u.scope,
      u.seconds,
    );
  };
  return {
    get stopped() {
      return stopped;
    },
    get stop() {
      return stop;
    },
    async run<T>(call: () => Promise<T>): Promise<T> {
      for (let attempt = 0; ; attempt++) {
        if (stopped) throw new SyncStopped(stopped);
        if (calls++ > 0) await sleep(Math.max(options.pauseMs, resumeAt - nowMs()));
        const spent = await options.charge?.();
        if (spent) {
          stop = spent;
          stopped = spent.reason;
          throw new SyncStopped(stopped);
        }
        let said: UsageStop | undefined;
        try {
          const result = await observeUsage((u) => {
            if (!said || u.scope === "app" || u.seconds > said.seconds) said = u;
            return u.seconds > options.maxWaitSeconds;
          }, call);
          if (said) await spentOnSuccess(said);
          return result;
        } catch (err) {
          if (!(err instanceof NetworkRateLimitError)) throw err;
          // An answer of this read said the budget is spent and the rest of the read was not sent.
          if (said && said.seconds > options.maxWaitSeconds) {
            await spentOnSuccess(said);
            throw new SyncStopped(stopped);
          }
          const wait = err.retryAfterSeconds;
          if (wait > options.maxWaitSeconds || attempt >= retries) {
            const whose = err.scope === "app" ? "the app's" : "this account's";
            await stopFor(
              `${label} rate limited ${whose} reads (retry after ${wait} s); the next sync reads it again`,
              err.scope,
              wait,
            );
            throw new SyncStopped(stopped);
          }
          await sleep(wait * 1000);
        }
      }
    },
  };
}
