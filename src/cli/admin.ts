/**
 * Operator commands: `admin user create`, `admin user set-status`, `admin workspace create`,
 * `admin workspace set-status`, `admin workspace add-member`, `admin credits grant`, `admin social connect`,
 * `admin analytics sync --now`, `admin providers check`, `admin keys reseal`, `admin mcp enable|disable|default`.
 * Each prints one line of JSON on success.
 */
import type { AppContext } from "../context.ts";
import type { Knex } from "../db/knex.ts";
import { addMember, createUser } from "../domain/account/accounts.ts";
import { grantCredits } from "../domain/account/credits.ts";
import { isPlan, PLANS } from "../domain/account/plans.ts";
import { createWorkspace } from "../domain/account/workspaces.ts";
import { ACCOUNT_STATUSES, setUserStatus, setWorkspaceStatus } from "../domain/account/suspension.ts";
import { ANALYTICS_USAGE, runAnalyticsAdmin } from "./analytics.ts";
import { flags, UsageError } from "./args.ts";
import { DEMO_USAGE, runDemo } from "./demo.ts";
import { PROVIDERS_USAGE, runProvidersAdmin } from "./providers.ts";
import { KEYS_USAGE, runKeysAdmin } from "./keys.ts";
import { setMcpEnabled } from "../domain/service/mcp-switch.ts";
import { runSocialAdmin, SOCIAL_USAGE } from "./social.ts";

export const ADMIN_USAGE = `admin user create --email E --password P --workspace NAME [--plan ${PLANS.join("|")}]
admin user set-status --email E --status ${ACCOUNT_STATUSES.join("|")}
admin workspace create --email E --name NAME
admin workspace set-status --workspace-id UUID --status ${ACCOUNT_STATUSES.join("|")}
admin workspace add-member --workspace-id UUID --email E [--role member|owner]
admin credits grant --email E --credits N
${SOCIAL_USAGE}
${ANALYTICS_USAGE}
${PROVIDERS_USAGE}
${KEYS_USAGE}
admin mcp enable|disable|default
${DEMO_USAGE}`;

/**
 * Runs an admin command. `app` (the booted context) is needed by commands that seal secrets
 * (`admin social connect`). @returns the JSON result. @throws UsageError or AccountError.
 */
export async function runAdmin(db: Knex, argv: string[], app?: AppContext): Promise<unknown> {
  const [noun, verb, ...rest] = argv;
  const cmd = `${noun ?? ""} ${verb ?? ""}`;
  if (cmd === "user create") {
    const f = flags(rest, ["email", "password", "workspace", "plan"], ["email", "password", "workspace"]);
    if (f.plan !== undefined && !isPlan(f.plan))
      throw new UsageError(`--plan must be one of ${PLANS.join(", ")}`);
    return createUser(
      db,
      {
        email: f.email!,
        password: f.password!,
        workspace: f.workspace!,
        ...(f.plan ? { plan: f.plan } : {}),
      },
      app?.config.passwordHash,
    );
  }
  if (cmd === "user set-status") {
    const f = flags(rest, ["email", "status"], ["email", "status"]);
    return setUserStatus(db, f.email!, f.status!, new Date());
  }
  if (cmd === "workspace set-status") {
    const f = flags(rest, ["workspace-id", "status"], ["workspace-id", "status"]);
    if (!/^[0-9a-f-]{36}$/i.test(f["workspace-id"]!)) throw new UsageError("--workspace-id must be a UUID");
    return setWorkspaceStatus(db, f["workspace-id"]!, f.status!, new Date());
  }
  if (cmd === "workspace create") {
    const f = flags(rest, ["email", "name"], ["email", "name"]);
    const user = await db("users").whereRaw("lower(email) = lower(?)", [f.email!]).first("id");
    if (!user) throw new UsageError(`no user with email ${f.email}`);
    return createWorkspace(db, user.id, f.name!);
  }
  if (cmd === "workspace add-member") {
    const f = flags(rest, ["workspace-id", "email", "role"], ["workspace-id", "email"]);
    if (!/^[0-9a-f-]{36}$/i.test(f["workspace-id"]!)) throw new UsageError("--workspace-id must be a UUID");
    if (f.role !== undefined && f.role !== "member" && f.role !== "owner")
      throw new UsageError("--role must be member or owner");
    return addMember(
      db,
      f["workspace-id"]!,
      f.email!,
      (f.role as "member" | "owner" | undefined) ?? "member",
    );
  }
  if (cmd === "credits grant") {
    const f = flags(rest, ["email", "credits"], ["email", "credits"]);
    const credits = Number(f.credits);
    if (!Number.isSafeInteger(credits) || credits <= 0)
      throw new UsageError("--credits must be a positive integer");
    const user = await db("users").whereRaw("lower(email) = lower(?)", [f.email!]).first();
    if (!user) throw new UsageError(`no user with email ${f.email}`);
    return { user_id: user.id, balance: await grantCredits(db, user.id, credits, "grant:operator") };
  }
  if (noun === "social") return runSocialAdmin(db, [verb ?? "", ...rest], app);
  if (noun === "analytics") return runAnalyticsAdmin([verb ?? "", ...rest], app);
  if (noun === "providers") return runProvidersAdmin([verb ?? "", ...rest], app?.config);
  if (noun === "keys") return runKeysAdmin([verb ?? "", ...rest], app);
  if (noun === "mcp") {
    const values: Record<string, boolean | null> = { enable: true, disable: false, default: null };
    if (!verb || !Object.hasOwn(values, verb) || rest.length > 0)
      throw new UsageError("usage: admin mcp enable|disable|default");
    const value = values[verb] as boolean | null;
    // Every instance: workers at their next operation, HTTP endpoints within seconds (mcp-switch.ts).
    return { mcp_enabled: await setMcpEnabled(db, value, new Date()) };
  }
  if (noun === "demo") return runDemo(db, argv.slice(1), app?.config, app);
  throw new UsageError(`unknown admin command "${cmd.trim()}"\n${ADMIN_USAGE}`);
}
