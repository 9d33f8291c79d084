/**
 * Selection of the social provider for an application context: local by default; `useSocialProvider`
 * binds another implementation (a real adapter, or a fake at the boundary in tests).
 */
import type { AppContext } from "../../context.ts";
import { localSocialProvider } from "./local.ts";
import type { SocialProvider } from "./types.ts";

const bound = new WeakMap<AppContext, SocialProvider>();
const local = localSocialProvider();

/** The social provider of `app`. */
export function socialProvider(app: AppContext): SocialProvider {
  return bound.get(app) ?? local;
}

/** Binds `provider` to `app`. */
export function useSocialProvider(app: AppContext, provider: SocialProvider): void {
  bound.set(app, provider);
}
