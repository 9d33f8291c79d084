/**
 * The contract between the tool pipeline (src/runtime/), the generated registry (generated/registry.ts)
 * and the handlers (src/tools/<group>/<name>.ts). DESIGN.md section 3.
 */
import type { AppContext } from "./context.ts";
import type { Knex } from "./db/knex.ts";
import type { ErrorCode, Retry } from "./errors.ts";
import type { Network } from "./providers/social/types.ts";
import type { Scope } from "./scopes.ts";

/** Who is calling: resolved from a validated access token (src/oauth/). Never from arguments. */
export interface AuthContext {
  userId: string;
  /** The workspace chosen at consent (the token's workspace-specific grant marker). */
  workspaceId: string;
  /** The connection (grant) id. */
  grantId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  /** The access token's `jti`. */
  tokenId: string;
}

/** Everything a handler may use. Handlers never read the HTTP request. */
export interface ToolContext {
  app: AppContext;
  auth: AuthContext;
  /** Server-generated UUID of this tools/call (or of the worker run). */
  requestId: string;
  /** Set for review and queued tools (the operation being accepted or executed). */
  operationId: string | undefined;
  /**
   * The database handle for the handler's work: a transaction for inline handlers and `accept`
   * (committed with the idempotency record), the pool for `execute` in the worker.
   */
  db: Knex | Knex.Transaction;
  /** Aborted when the client disconnects (inline) or the deadline passes (worker). */
  signal: AbortSignal;
  /** Reports progress (SSE `notifications/progress` when the client asked for it); no-op otherwise. */
  progress(progress: number, total?: number, message?: string): void;
}

/** What a handler returns: the envelope's `data`, and the credits it charged, if any. */
export interface ToolOutput<D = Record<string, unknown>> {
  data: D;
  /** Credits charged by this call (service spec 2.7 `credits_charged`). */
  credits_charged?: number;
  /** The agent's next call (the envelope's `next`), when the result has a follow-up. */
  next?: NextStep | undefined;
  /**
   * Set by the `execute` of an inline tool that may hand its work to the worker (a `DeferrableToolHandler`,
   * create_product with only a URL): the pipeline records a queued operation with this output as its accepted
   * data and the call answers `queued` (src/runtime/paths.ts startDeferred).
   */
  queue?: true | undefined;
}

/** What a post publishes (src/domain/social/content.ts). */
export interface PostContent {
  post_id: string;
  type: string;
  title: string | null;
  caption: string | null;
  /** A carousel's slide images in position order (null where a slide has none); [] for other posts. */
  slide_asset_ids: Array<string | null>;
  /** The post's media asset ids, in order. */
  media_asset_ids: string[];
  /**
   * The alt text of each image (a video's description) as sent, in media order (null where an item has none);
   * absent when no item has one (src/domain/media/alt-text.ts).
   */
  alt_texts?: Array<string | null> | undefined;
}

/** One destination of an approval, with what it publishes besides the post. */
export interface DestinationContent {
  social_account_id: string;
  network: Network;
  /** The Pinterest Pin's link (the post's product URL at the request); null for other networks. */
  link: string | null;
  /** The Pinterest board the Pin is saved to (the account's chosen board); null for other networks. */
  board_id: string | null;
  /**
   * How a LinkedIn post of two or more images goes out (the account's `linkedin_carousel` at the request:
   * one PDF `document`, or `images`); absent for other networks and posts (src/domain/social/content.ts).
   */
  linkedin_carousel?: "document" | "images" | undefined;
}

/** The content an approval binds: the post's and each destination's (src/domain/social/content.ts). */
export interface ApprovedContent extends PostContent {
  destinations: DestinationContent[];
  /** The comment posted under the post once it is live (absent: none; src/domain/social/first-comment.ts). */
  first_comment?: string | undefined;
}

/**
 * What a run of an automation publishes besides its generated content (src/domain/automations/
 * publish-binding.ts): the product's id, name, link and price (minor units) and the destination accounts.
 */
export interface AutomationPublishFacts {
  product_id: string;
  name: string;
  product_url: string | null;
  price_minor: number | null;
  currency: string | null;
  social_account_ids: string[];
}

/** Plain-word description of a review request for the approval page (service spec 4.4). */
export interface ApprovalDescription {
  /** One sentence, e.g. "Delete the post “Summer sale…”". Shown escaped, as inert text. */
  summary: string;
  /** Owned records the action touches, by label (post caption excerpt, product name, automation name). */
  resources: Array<{ kind: string; id: string; label: string }>;
  /**
   * Destinations, e.g. social accounts by name and network, with the handle, and for a Pinterest account the
   * board its Pin is saved to (a Facebook account's name is its Page).
   */
  destinations: Array<{
    name: string;
    network: string;
    handle?: string | null | undefined;
    board_id?: string | null | undefined;
    /** How the network changes the post (src/domain/social/post-fit.ts): "document, 6 pages". */
    format?: string | undefined;
  }>;
  /**
   * What each destination (or connected account) would refuse of the post as it is, per the network rule
   * table (src/domain/social/validate.ts `postProblems`): caption or title too long, an aspect ratio out of
   * range, ... Shown as a warning list.
   */
  warnings?: Array<{ destination: string; network: string; problems: string[] }> | undefined;
  /** Pictures shown whole on the page (e.g. every carousel slide), served to the owner at /media/{id}/file. */
  images?:
    | Array<{
        asset_id: string;
        label: string /** The alt text sent with it, when it has one. */;
        alt?: string | undefined;
      }>
    | undefined;
  /** The full text the action publishes (the caption), shown untruncated. */
  text?: string | undefined;
  /** When the action takes effect (ISO 8601), e.g. a schedule's time. */
  when?: string | undefined;
  /** The configuration being approved, in plain words; `old` is the current value an update replaces. */
  settings?: Array<{ label: string; value: string; old?: string | undefined }> | undefined;
  /**
   * Record versions the request was made for (service spec 4.4: what the user approves is what they saw):
   * when one of them has changed by the time of the decision, approving is refused as stale.
   */
  versions?: Array<{ table: "posts" | "automations"; id: string; updated_at: string }> | undefined;
  /**
   * The owned media the action publishes, in order (images shown, videos played with `<video>` from the
   * owner-only `/media/{id}/file` route), so that what the user approves is what they saw.
   */
  media?: Array<{
    kind: "image" | "video";
    asset_id: string;
    /** A video's description as sent where the network takes one (src/domain/media/alt-text.ts). */
    description?: string | undefined;
  }>;
  /**
   * The content the approval binds (publish_post, schedule_post, approve_carousel) and its fingerprint: what
   * the page showed, down to the Pinterest link and board. Approving is refused as stale when the content
   * changed since; the approved effect and each delivery are checked against it.
   */
  content?: ApprovedContent | undefined;
  fingerprint?: string | undefined;
  /**
   * The publish facts of an automation the approval binds (enable_automation, update_automation,
   * run_automation) and their fingerprint (null: no product): approving is refused as stale when they
   * changed since, and the approved effect binds exactly these.
   */
  publish?: { facts: AutomationPublishFacts | null; fingerprint: string | null } | undefined;
  /**
   * delete_post with `remove_from_networks`: every published copy of the post and what happens to it
   * (`remove`: deleted through the network's API; `stays_live`: the API cannot, the person removes it by hand).
   */
  removals?:
    | Array<{
        network: string;
        account: string;
        handle?: string | null | undefined;
        post_url: string | null;
        action: "remove" | "stays_live";
      }>
    | undefined;
  /** The credits the action costs (0 when it costs none). */
  credits?: number | undefined;
  /**
   * One request for several actions decided together (schedule_posts): each item's own description (its post,
   * slides, caption, destinations, time, content and fingerprint); the page shows them all, the decision
   * covers all, and a change to any of them makes the request stale.
   */
  items?: ApprovalDescription[] | undefined;
  /**
   * Who made the generated parts the action publishes (`part`: "slide 2", "caption", "video"; `provider`:
   * `openai-compatible`, or `local` for the offline stand-in): the page says which parts the stand-in made
   * (src/domain/ai-fallback.ts).
   */
  made_by?: Array<{ part: string; provider: string }> | undefined;
}

/**
 * A tool's handler. Which members are needed depends on the catalog flags:
 * - inline (`review: false`, `queued: false`): `execute` runs in the caller's transaction.
 * - review (`review: true`): `describe` runs at call time (validates ownership, builds the approval page
 *   text; throws `not_found` for records the caller does not own); `execute` runs in the worker after approval.
 * - queued (`queued: true`): `accept` runs inline in the caller's transaction (creates native records,
 *   charges credits, returns their ids as `data`); `execute` runs in the worker with what `accept` returned.
 * Handlers throw ToolError for domain failures; anything else becomes `internal_error` (inline) or
 * `outcome_unknown` (worker).
 */
export interface ToolHandler<I, O, A = never> {
  execute(input: I, ctx: ToolContext, accepted?: A): Promise<ToolOutput<O>>;
  accept?(input: I, ctx: ToolContext): Promise<ToolOutput<A>>;
  describe?(input: I, ctx: ToolContext): Promise<ApprovalDescription>;
}

/**
 * The handler of an inline write tool that may hand its work to the worker (tools.yaml: an inline tool with a
 * `result`; service spec 4.6: `queued_handler=false` does not imply a finished output). At the call `execute`
 * returns the envelope's data `O`, with `queue: true` when the work must run in the background: the pipeline
 * then records a queued operation with that data (the call answers `queued`), and the worker calls `execute`
 * again with it as `accepted` and gets the result `R`.
 */
export interface DeferrableToolHandler<I, O, R> {
  execute(input: I, ctx: ToolContext, accepted?: O): Promise<ToolOutput<O | R>>;
}

/** The handler of a review tool: `describe` is required; `execute` returns the worker's result. */
export type ReviewToolHandler<I, R> = ToolHandler<I, R> & Required<Pick<ToolHandler<I, R>, "describe">>;

/** The handler of a queued tool: `accept` returns the envelope's data `A`, `execute` the worker's result `R`. */
export type QueuedToolHandler<I, R, A> = ToolHandler<I, R, A> &
  Required<Pick<ToolHandler<I, R, A>, "accept">>;

/**
 * A handler as the registry stores it once its types were checked against tools.yaml (generated/registry.ts
 * assigns each handler to its `ToolHandlers` entry first): the runtime validates inputs and outputs
 * against the compiled schemas, so it only needs object-shaped values.
 */
export type BoundToolHandler = ToolHandler<
  Record<string, unknown>,
  Record<string, unknown>,
  Record<string, unknown>
>;

export type Access = "read" | "write";
export type Budget = "read" | "write" | "ai" | "approval" | "delete";

/** Catalog metadata of one tool, as generated from tools.yaml. */
export interface ToolMeta {
  name: string;
  title: string;
  group: string;
  description: string;
  scope: Scope;
  access: Access;
  review: boolean;
  queued: boolean;
  /**
   * An inline write tool whose call may hand its work to the worker (`DeferrableToolHandler`): it answers
   * `succeeded`, or `queued` with an operation to poll.
   */
  deferrable: boolean;
  budget: Budget;
  /** How the credit cost is computed (documentation text). */
  credits: string;
  /** Minimum plan, or null. */
  plan: "creator" | "growth" | "pro" | null;
  annotations: {
    /** MCP ToolAnnotations.title: the tool's title. */
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /** JSON Schema 2020-12 of `arguments`. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the full structured envelope (service spec 2.4). */
  outputSchema: Record<string, unknown>;
  /** MCP `_meta` of the tool: the MCP Apps view of its results (src/mcp/views/catalog.ts), when it has one. */
  _meta?: { ui: { resourceUri: string } };
}

/** A validation failure in the TypeBox/Ajv shape. */
export interface SchemaIssue {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
}

/** A compiled validator: returns [] when the value is valid. */
export type Validator = (value: unknown) => SchemaIssue[];

/** One registry entry: metadata, compiled validators and the bound handler. */
export interface RegisteredTool extends ToolMeta {
  validateInput: Validator;
  validateOutput: Validator;
  handler: BoundToolHandler;
}

/** Envelope statuses (service spec 3.1). */
export type EnvelopeStatus =
  | "approval_required"
  | "approved"
  | "queued"
  | "running"
  | "succeeded"
  | "failed"
  | "dispatch_failed"
  | "denied"
  | "outcome_unknown";

/**
 * The call an agent makes next (DESIGN.md section 3): the tool, its arguments and how many seconds to wait
 * before calling it. `note` is not sent as a field: it is added to the plain-words text block (for example
 * which arguments to add).
 */
export interface NextStep {
  tool: string;
  arguments: Record<string, unknown>;
  /** Seconds to wait before the call (0: now). */
  after_seconds: number;
  note?: string | undefined;
}

/** The structured envelope (service spec 2.4, DESIGN.md section 3). */
export interface Envelope {
  request_id: string;
  status: EnvelopeStatus;
  data?: Record<string, unknown>;
  operation_id?: string;
  approval_url?: string;
  credits_charged?: number;
  /** The follow-up, wherever the agent has one. */
  next?: NextStep;
  error?: {
    code: ErrorCode;
    message: string;
    request_id: string;
    /** How to recover (errors.ts RETRY_ADVICE). */
    retry: Retry;
    retry_after?: number;
    details?: unknown;
  };
}
