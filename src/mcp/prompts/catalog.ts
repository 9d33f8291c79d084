/**
 * The prompts of the service (MCP server/prompts): workflows written for agents, offered to the user by the
 * client (often as slash commands). What each prompt is, which arguments it takes and which scopes it
 * needs; the messages and argument completions are in ./workflows.ts. Shared by the endpoint and the guide
 * (codegen/emit/guide-apps.ts). A prompt is listed only when the token has every scope it needs, like
 * tools/list lists tools.
 */
import type { Scope } from "../../scopes.ts";

/** Where an argument's completions come from (completion/complete): the user's own records, or a fixed list. */
export type CompletionSource = "products" | "designs" | "failed_deliveries" | "networks";

export interface PromptArgumentSpec {
  name: string;
  title: string;
  description: string;
  required: boolean;
  /** Completed from (completion/complete); absent: no completions. */
  completes?: CompletionSource;
}

export interface PromptSpec {
  name: "carousel_for_product" | "plan_week_from_what_worked" | "why_delivery_failed";
  title: string;
  description: string;
  /** Every scope the workflow needs (listed and served only when the token has them all). */
  scopes: readonly Scope[];
  arguments: readonly PromptArgumentSpec[];
}

/** Every prompt, in the order prompts/list gives them. */
export const PROMPTS: readonly PromptSpec[] = [
  {
    name: "carousel_for_product",
    title: "Carousel for a product",
    description:
      "Analyse a product's page, pick a carousel design, generate the carousel (credits), show it and ask the " +
      "user to approve it in the browser.",
    scopes: ["read:products", "create:carousels", "read:content", "manage:carousels"],
    arguments: [
      {
        name: "product_id",
        title: "Product",
        description: "The product (one of yours; type part of its name to find it).",
        required: true,
        completes: "products",
      },
      {
        name: "design_id",
        title: "Design",
        description: "A carousel design (optional; the agent picks one otherwise).",
        required: false,
        completes: "designs",
      },
    ],
  },
  {
    name: "plan_week_from_what_worked",
    title: "Plan a week from what worked",
    description:
      "Read the best performing content and the account analytics, find what worked, and draft a week of posts " +
      "for the user to review (nothing is published or scheduled without their approval).",
    scopes: ["read:analytics", "read:content", "create:content"],
    arguments: [
      {
        name: "network",
        title: "Network",
        description: "Plan for one network only (optional).",
        required: false,
        completes: "networks",
      },
      {
        name: "product_id",
        title: "Product",
        description: "Focus the week on one product (optional).",
        required: false,
        completes: "products",
      },
    ],
  },
  {
    name: "why_delivery_failed",
    title: "Why did this delivery fail",
    description:
      "Read a failed delivery, its social account's state and the network's rules, and tell the user the cause " +
      "and what to do.",
    scopes: ["read:schedules", "read:content", "read:social_accounts"],
    arguments: [
      {
        name: "delivery_id",
        title: "Delivery",
        description: "The failed delivery (one of yours, newest first).",
        required: true,
        completes: "failed_deliveries",
      },
    ],
  },
];

/** The prompt named `name`, or undefined. */
export function promptByName(name: unknown): PromptSpec | undefined {
  return PROMPTS.find((p) => p.name === name);
}
