/**
 * Renders an approval page for a tool's `describe` output as the browser route does (src/web/approval-page.ts),
 * for an operation waiting in `approval_required` that expires in 10 minutes, from an unverified client.
 */
import type { OperationRow } from "../../src/domain/operations/store.ts";
import type { ApprovalDescription } from "../../src/tool-contract.ts";
import { renderApprovalPage } from "../../src/web/approval-page.ts";

/** The HTML of the approval page of `tool` showing `description`, times in `timeZone` (default UTC). */
export function renderApproval(description: ApprovalDescription, tool: string, timeZone?: string): string {
  const now = new Date();
  const op = {
    id: "00000000-0000-4000-8000-000000000001",
    tool,
    state: "approval_required",
    created_at: now,
    approval_expires_at: new Date(now.getTime() + 600_000),
  } as unknown as OperationRow;
  return renderApprovalPage({
    op,
    toolTitle: tool,
    clientName: "Helpful Agent",
    clientVerified: false,
    description,
    csrfToken: "t",
    now,
    timeZone,
  });
}
