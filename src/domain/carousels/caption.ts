/**
 * The caption of a generated carousel (docs/operations.md "Captions of generated
 * posts"): written by the render of a `generate` run once the slides' copy is settled and saved, while the
 * slides' images arrive and are drawn (the run waits for it before finishing), from the product (name, description, brand, price, tags, link), the run's brief and every
 * slide's headline and body. A post that already has a caption (the agent's `caption` argument, or an earlier
 * attempt of this render) keeps it: a resumed render writes nothing and nothing is charged
 * (src/domain/captions/post-caption.ts).
 */
import type { AppContext } from "../../context.ts";
import { writeGeneratedCaption } from "../captions/post-caption.ts";
import { productSubject } from "./slide-inputs.ts";

/** Writes the caption of the carousel post of `run` when it has none (see the module comment). */
export async function writeCarouselCaption(
  app: AppContext,
  run: { kind: string; post_id: string },
  product: Record<string, any> | undefined,
  brief: string | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (run.kind !== "generate" || !product) return;
  const slides: Array<{ headline: string | null; body: string | null }> = await app
    .db("carousel_slides")
    .where({ post_id: run.post_id })
    .orderBy("position")
    .select("headline", "body");
  await writeGeneratedCaption(
    app,
    run.post_id,
    {
      subject: productSubject(product, brief),
      productUrl: product.product_url ?? undefined,
      slides: slides.map((s) => ({ headline: s.headline ?? "", body: s.body ?? "" })),
    },
    signal,
  );
}
