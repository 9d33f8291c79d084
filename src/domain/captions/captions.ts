/**
 * Caption and hook generation (service spec 1.7 "AI text"): builds the subject from an owned post, an
 * owned product and/or a brief, and asks the configured AI text provider. Nothing is saved and no credits
 * are charged (prices.ts TEXT_GENERATION_PRICE). Subject text is untrusted data handed to the provider as
 * data (service spec 5.14).
 */
import type { Knex } from "../../db/knex.ts";
import type { AiTextProvider, CaptionVariation, TextSubject, Tone } from "../../providers/ai-text/types.ts";
import type { Owner } from "../owner.ts";
import { getPost } from "../content/posts.ts";
import { getProduct } from "../products/products.ts";

export interface SubjectInput {
  post_id?: string | undefined;
  product_id?: string | undefined;
  brief?: string | undefined;
}

/**
 * Resolves the subject. A post's product is used when no product is given.
 * @throws ToolError not_found for a post or product the owner does not have.
 */
export async function buildSubject(db: Knex, owner: Owner, input: SubjectInput): Promise<TextSubject> {
  const post = input.post_id ? await getPost(db, owner, input.post_id) : undefined;
  const productId = input.product_id ?? post?.product_id ?? undefined;
  const product = productId ? await getProduct(db, owner, productId) : undefined;
  const subject: TextSubject = { kind: product ? "product" : post ? "post" : "brief" };
  if (product) {
    subject.name = product.name;
    if (product.description) subject.description = product.description;
    if (product.brand) subject.brand = product.brand;
    if (product.price !== null && product.currency) {
      subject.price = product.price;
      subject.currency = product.currency;
    }
    if (product.tags.length > 0) subject.tags = product.tags;
  }
  if (post) {
    if (post.caption) subject.caption = post.caption;
    if (!subject.name && post.title) subject.name = post.title;
  }
  if (input.brief) subject.brief = input.brief;
  return subject;
}

/** Caption variations for the subject. @throws ToolError not_found, rate_limited, internal_error. */
export async function generateCaptions(
  db: Knex,
  owner: Owner,
  provider: AiTextProvider,
  input: SubjectInput & {
    count: number;
    tone: Tone;
    network?: string | undefined;
    include_hashtags?: boolean | undefined;
  },
  signal: AbortSignal,
): Promise<CaptionVariation[]> {
  const subject = await buildSubject(db, owner, input);
  return provider.captions(
    {
      subject,
      count: input.count,
      tone: input.tone,
      network: input.network,
      includeHashtags: input.include_hashtags,
    },
    signal,
  );
}

/** On-screen hooks for UGC videos. @throws ToolError not_found, rate_limited, internal_error. */
export async function generateUgcHooks(
  db: Knex,
  owner: Owner,
  provider: AiTextProvider,
  input: SubjectInput & { count: number; tone: Tone },
  signal: AbortSignal,
): Promise<string[]> {
  const subject = await buildSubject(db, owner, { product_id: input.product_id, brief: input.brief });
  return provider.ugcHooks({ subject, count: input.count, tone: input.tone }, signal);
}
