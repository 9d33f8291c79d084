/**
 * The owner of domain records: one user in one workspace (service spec 1.2, 5.13). Every query of the
 * domain services filters by both, so another member's or another workspace's record is simply absent
 * (`not_found`, never `forbidden`).
 */

export interface Owner {
  userId: string;
  workspaceId: string;
}

/** The `where` clause that scopes a table to `owner` (columns `user_id`, `workspace_id`). */
export function ownedBy(owner: Owner, alias?: string): Record<string, string> {
  const p = alias ? `${alias}.` : "";
  return { [`${p}user_id`]: owner.userId, [`${p}workspace_id`]: owner.workspaceId };
}

/** The owner of a tool call: the token's user and consented workspace (never from arguments). */
export function ownerOf(auth: { userId: string; workspaceId: string }): Owner {
  return { userId: auth.userId, workspaceId: auth.workspaceId };
}
