/**
 * The owner's time zone on /settings (#account): a select of the IANA time zones this runtime knows, posted
 * to `POST /settings/time-zone` (session + CSRF), saved as `users.time_zone` (src/domain/account/time-zone.ts).
 * Approval pages show a schedule's time in it beside UTC.
 */
import express, { Router } from "express";
import type { AppContext } from "../context.ts";
import { knownTimeZones, setUserTimeZone } from "../domain/account/time-zone.ts";
import { ToolError } from "../errors.ts";
import { html, page, type RawHtml } from "./html.ts";
import { signedInPage } from "./guards.ts";
import { type BrowserSession, requireCsrf } from "./session.ts";

export const TIME_ZONE_PATH = "/settings/time-zone";

/** The form: the current zone selected (none: "not set, UTC"). */
export function timeZoneForm(current: string | null, csrfToken: string): RawHtml {
  return html`<form method="post" action="${TIME_ZONE_PATH}" id="time-zone-form">
<input type="hidden" name="csrf_token" value="${csrfToken}">
<label for="time-zone">Time zone for times on approval pages</label>
<select id="time-zone" name="time_zone"><option value=""${current === null ? html` selected` : ""}>Not set (UTC only)</option>${knownTimeZones().map(
    (z) => html`<option value="${z}"${z === current ? html` selected` : ""}>${z}</option>`,
  )}</select>
<button type="submit">Save time zone</button>
</form>`;
}

/** The router of `POST /settings/time-zone`. */
export function timeZoneRoutes(ctx: AppContext): Router {
  const router = Router();
  router.post(
    TIME_ZONE_PATH,
    ...signedInPage(ctx, "settings"),
    express.urlencoded({ extended: false, limit: "2kb", parameterLimit: 5 }),
    requireCsrf(),
    async (req, res) => {
      const s = res.locals.session as BrowserSession;
      const raw = (req.body as Record<string, unknown> | undefined)?.time_zone;
      const zone = typeof raw === "string" && raw !== "" ? raw : null;
      try {
        await setUserTimeZone(ctx.db, s.userId, zone);
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        res
          .status(400)
          .type("html")
          .send(page("Bad request", html`<p>${err.message}</p>`));
        return;
      }
      res.redirect(303, "/settings#account");
    },
  );
  return router;
}
