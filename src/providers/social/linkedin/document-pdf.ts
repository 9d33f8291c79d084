/**
 * The PDF of a LinkedIn document post, built with pdf-lib (https://pdf-lib.js.org/): one page per image, in
 * post order, each page the size of its image (1 pixel = 1 PDF point, so the page keeps the slide's aspect
 * ratio) and filled by it; the document's title in the PDF's Title entry (ISO 32000-1 section 14.3.3, the
 * document information dictionary). JPEG images are embedded as they are (DCTDecode), PNG images decoded and
 * embedded lossless (FlateDecode), as pdf-lib does.
 *
 * Limits (./../rules.ts `NETWORK_RULES.linkedin.document`, from
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/documents-api): at most
 * 300 pages and 100 MB; a larger document is refused here, before any upload.
 */
import { PDFDocument } from "pdf-lib";
import { NetworkRejectedError } from "../network.ts";
import { NETWORK_RULES } from "../rules.ts";

/** One page's image: its bytes and type (`image/jpeg` or `image/png`). */
export interface PdfPageImage {
  bytes: Uint8Array;
  mime: string;
}

/** The built document: the PDF's bytes and its number of pages. */
export interface BuiltPdf {
  bytes: Uint8Array;
  pages: number;
}

/** A fixed creation time: the same images and title always make the same bytes. */
const EPOCH = new Date(0);

/**
 * Builds the PDF of `images` titled `title`.
 * @throws NetworkRejectedError for an image that is neither JPEG nor PNG, more pages than LinkedIn takes, or
 *   a PDF larger than LinkedIn takes (rules.ts `document`).
 */
export async function buildSlidesPdf(images: readonly PdfPageImage[], title: string): Promise<BuiltPdf> {
  const rules = NETWORK_RULES.linkedin.document!;
  if (images.length > rules.maxPages)
    throw new NetworkRejectedError(
      `LinkedIn takes a document of at most ${rules.maxPages} pages; this one has ${images.length}.`,
    );
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setTitle(title, { showInWindowTitleBar: true });
  pdf.setCreationDate(EPOCH);
  pdf.setModificationDate(EPOCH);
  pdf.setProducer("pdf-lib (https://github.com/Hopding/pdf-lib)");
  for (const [i, image] of images.entries()) {
    // pdf-lib's JPEG embedder reads the bytes through a DataView of the whole underlying ArrayBuffer, ignoring
    // the view's byteOffset: a small Buffer cut from Node's shared pool would be read from the pool's start
    // ("SOI not found in JPEG"). A copy starts at offset 0.
    const bytes = image.bytes.byteOffset === 0 ? image.bytes : Uint8Array.from(image.bytes);
    const embedded =
      image.mime === "image/jpeg"
        ? await pdf.embedJpg(bytes)
        : image.mime === "image/png"
          ? await pdf.embedPng(bytes)
          : undefined;
    if (!embedded)
      throw new NetworkRejectedError(
        `slide ${i + 1} is ${image.mime || "of an unknown type"}: a LinkedIn document page takes JPEG or PNG.`,
      );
    const page = pdf.addPage([embedded.width, embedded.height]);
    page.drawImage(embedded, { x: 0, y: 0, width: embedded.width, height: embedded.height });
  }
  const bytes = await pdf.save({ useObjectStreams: true });
  if (bytes.length > rules.maxBytes)
    throw new NetworkRejectedError(
      `LinkedIn takes a document of at most ${Math.round(rules.maxBytes / 1024 / 1024)} MB; this one is ${(bytes.length / 1024 / 1024).toFixed(1)} MB.`,
    );
  return { bytes, pages: images.length };
}
