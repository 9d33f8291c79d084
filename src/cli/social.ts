/**
 * Operator command `admin social connect --workspace-id W --email E --network N --name NAME [--handle H]`:
 * records a connected social account for that user and workspace on the local social provider (which needs
 * no credentials). Tools can never connect accounts (service spec 1.9). Prints the safe projection.
 */
import type { Knex } from "../db/knex.ts";
import { connectSocialAccount } from "../domain/social/accounts.ts";
import { NETWORKS } from "../providers/social/types.ts";
import { flags, UsageError } from "./args.ts";

export const SOCIAL_USAGE = `admin social connect --workspace-id UUID --email E --network ${NETWORKS.join("|")} --name NAME [--handle H]`;

/** Runs `admin social <verb>`. @throws UsageError for bad flags, an unknown user or a non-member. */
export async function runSocialAdmin(db: Knex, argv: string[]): Promise<unknown> {
  const [verb, ...rest] = argv;
  if (verb !== "connect")
    throw new UsageError(`unknown admin social command "${verb ?? ""}"\n${SOCIAL_USAGE}`);
  const f = flags(
    rest,
    ["workspace-id", "email", "network", "name", "handle"],
    ["workspace-id", "email", "network", "name"],
  );
  if (!/^[0-9a-f-]{36}$/i.test(f["workspace-id"]!)) throw new UsageError("--workspace-id must be a UUID");
  if (!(NETWORKS as readonly string[]).includes(f.network!))
    throw new UsageError(`--network must be one of ${NETWORKS.join(", ")}`);
  const user = await db("users").whereRaw("lower(email) = lower(?)", [f.email!]).first("id");
  if (!user) throw new UsageError(`no user with email ${f.email}`);
  const member = await db("memberships").where({ workspace_id: f["workspace-id"], user_id: user.id }).first();
  if (!member) throw new UsageError("the user is not a member of that workspace");
  try {
    return await connectSocialAccount(
      db,
      undefined,
      { userId: user.id, workspaceId: f["workspace-id"]! },
      {
        network: f.network!,
        displayName: f.name!,
        handle: f.handle,
      },
    );
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
