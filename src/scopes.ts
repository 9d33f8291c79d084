/**
 * OAuth scopes of the service (DESIGN.md section 4, service spec 5.9), with the plain words the consent
 * page shows. The catalog (tools.yaml) may only name scopes listed here; codegen checks it.
 */
export const SCOPES = {
  "read:profile": "See your profile, plan, credit balance and account settings",
  "read:workspace": "See the workspace you choose",
  "read:social_accounts": "See which social accounts are connected (names and networks only)",
  "read:content": "Read your posts, drafts and carousels",
  "read:media": "Read your media library",
  "read:products": "Read your products",
  "read:schedules": "Read your schedules and delivery records",
  "read:automations": "Read your automations and their runs",
  "read:analytics": "Read saved analytics of content published through the service",
  "read:jobs": "Check the status of work it started",
  "create:content": "Create drafts",
  "delete:content": "Ask to delete posts (you approve each one in the browser)",
  "create:products": "Create products and analyse product pages",
  "manage:products": "Change products",
  "delete:products": "Ask to delete products (you approve each one in the browser)",
  "create:carousels": "Generate carousels (uses credits)",
  "manage:carousels": "Regenerate carousel slides and ask to approve carousels",
  "create:captions": "Generate captions and hooks",
  "create:automations": "Save automation drafts",
  "manage:automations": "Ask to change, enable, disable or run automations (you approve each in the browser)",
  "delete:automations": "Ask to delete automations (you approve each one in the browser)",
  "publish:content": "Ask to publish posts (you approve each one in the browser)",
  "schedule:content": "Ask to schedule posts (you approve each one in the browser)",
} as const;

export type Scope = keyof typeof SCOPES;

/** All scopes in a stable order (as declared). */
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export function isScope(s: string): s is Scope {
  return Object.hasOwn(SCOPES, s);
}
