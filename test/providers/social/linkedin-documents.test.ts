/**
 * LinkedIn document posts against the provider-shaped fake (test/fakes/linkedin.ts, the Documents API in
 * test/fakes/linkedin-documents.ts) through SOCIAL_HTTP_OVERRIDE: a carousel of rendered slides goes as one
 * PDF (a page per slide at the slide's size, page 1's image the bytes of slide 1, the post's title as the
 * document's), the `linkedin_carousel: images` setting keeps the multi-image post, the fake refuses a post
 * naming a document that is not AVAILABLE, page 1 rendered (poppler's pdftoppm) looks like slide 1, a lost answer to the document's PUT and to the post's create each
 * ends with one document and one post, and the PDF limits of rules.ts hold.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { inflateSync } from "node:zlib";
import { describe, test } from "node:test";
import { PDFArray, PDFDict, PDFDocument, PDFName, type PDFRawStream } from "pdf-lib";
import sharp from "sharp";
import { renderSlide } from "../../../src/providers/render/slide.ts";
import { createSocialHttp } from "../../../src/providers/social/http.ts";
import { linkedinAdapter } from "../../../src/providers/social/linkedin/adapter.ts";
import { buildSlidesPdf } from "../../../src/providers/social/linkedin/document-pdf.ts";
import {
  type DeliveryJob,
  type JobMedia,
  NetworkRejectedError,
  NetworkTransientError,
} from "../../../src/providers/social/network.ts";
import { NETWORK_RULES } from "../../../src/providers/social/rules.ts";
import { drive, jobFor, saverFor, startMediaHost } from "../../fakes/jobs.ts";
import {
  LI_API_HOST,
  LI_ORGANIZATION_APP_SCOPES,
  LI_WWW_HOST,
  type LinkedInMember,
  linkedinFake,
} from "../../fakes/linkedin.ts";
import { FAKE_APPS } from "../../fakes/live-env.ts";
import { startFakeNetworks } from "../../fakes/server.ts";

const credentials = FAKE_APPS.linkedin;
const server = await startFakeNetworks();
const http = createSocialHttp(server.url);
const li = linkedinFake(server, { ...credentials, appScopes: LI_ORGANIZATION_APP_SCOPES });
const host = await startMediaHost();

const slideContent = (position: number, headline: string) => ({
  headline,
  body: "15% vitamin C with hyaluronic acid, fragrance free.",
  position,
  total: 3,
  kind: (position === 1 ? "hook" : "content") as "hook" | "content",
  productName: "Glow Serum",
});
const slides = [
  await renderSlide({
    design: "bold-minimal",
    width: 1080,
    height: 1350,
    content: slideContent(1, "Brighter skin"),
  }),
  await renderSlide({
    design: "bold-minimal",
    width: 1080,
    height: 1350,
    content: slideContent(2, "In 14 days"),
  }),
];
// A PNG page (an uploaded image): not flat, so a pixel comparison means something.
const pngSlide = await sharp({
  create: { width: 600, height: 750, channels: 3, background: { r: 240, g: 200, b: 20 } },
})
  .composite([
    { input: { create: { width: 200, height: 300, channels: 3, background: "#1f4fd1" } }, left: 50, top: 60 },
  ])
  .png()
  .toBuffer();
const media: JobMedia[] = [
  await host.add({ name: "doc-1.jpg", bytes: slides[0]!.bytes, kind: "image", mime: "image/jpeg" }),
  await host.add({ name: "doc-2.jpg", bytes: slides[1]!.bytes, kind: "image", mime: "image/jpeg" }),
  await host.add({ name: "doc-3.png", bytes: pngSlide, kind: "image", mime: "image/png" }),
];

const adapter = () =>
  linkedinAdapter(credentials, {
    publicBaseUrl: "http://127.0.0.1",
    sealer: { seal: (v) => JSON.stringify(v), open: (s) => JSON.parse(s) },
    now: () => new Date(),
    http,
  });

function liJob(
  m: LinkedInMember,
  input: { title?: string; settings?: Record<string, unknown> } = {},
): DeliveryJob {
  const author = m.organizations[0]?.urn ?? m.urn;
  const job = jobFor({
    network: "linkedin",
    networkAccountId: author,
    handle: m.name,
    tokens: { accessToken: m.accessToken, refreshToken: m.refreshToken, scopes: m.scopes },
    caption: "Three slides",
    title: input.title ?? "Glow Serum: brighter skin",
    type: "carousel",
    media,
    settings: input.settings ?? {},
  });
  job.account.metadata = {
    authorUrn: author,
    authorType: author.includes(":person:") ? "person" : "organization",
  };
  return job;
}

const documentsMade = () => server.counter("linkedin.documents");
const documentPuts = () => server.hitsFor(LI_WWW_HOST, /uploaded-document/, "PUT");

/** The image XObject drawn on `page` (the only one): its dictionary and raw stream bytes. */
function pageImage(pdf: PDFDocument, page: number): { dict: PDFDict; bytes: Uint8Array } {
  const resources = pdf.getPage(page).node.Resources()!;
  const xobjects = resources.lookup(PDFName.of("XObject"), PDFDict);
  const [key] = xobjects.keys();
  const stream = xobjects.lookup(key!) as PDFRawStream;
  return { dict: stream.dict, bytes: stream.contents };
}

/**
 * Renders page `n` (1-based) of `pdf` with poppler's pdftoppm (Debian `poppler-utils`, installed by .ci/run)
 * at 72 dpi, so a page of W x H points is W x H pixels. @returns its RGB pixels.
 * @throws when pdftoppm is missing (never skipped: install poppler-utils) or fails.
 */
async function renderPdfPage(pdf: Uint8Array, n: number) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-pdf-"));
  try {
    await writeFile(path.join(dir, "doc.pdf"), pdf);
    const args = ["-png", "-r", "72", "-f", String(n), "-l", String(n), "-singlefile", "doc.pdf", "page"];
    await promisify(execFile)("pdftoppm", args, { cwd: dir }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") throw new Error("pdftoppm is missing: apt-get install poppler-utils");
      throw err;
    });
    const png = await readFile(path.join(dir, "page.png"));
    return sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Mean absolute difference of two equally long 8-bit pixel buffers, levels per channel. */
function meanAbsoluteDifference(a: Buffer, b: Buffer): number {
  assert.equal(a.length, b.length, "the same size");
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs((a[i] as number) - (b[i] as number));
  return sum / a.length;
}

describe("document posts", () => {
  test("a carousel goes as one PDF: a page per slide at its size, page 1 is slide 1, titled from the post", async () => {
    const m = li.addMember({ name: "Doc Admin", pages: [{ name: "Doc Co" }] });
    const postsBefore = li.postsCreated;
    const docsBefore = documentsMade();
    const job = liJob(m);
    const { result, states } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published", JSON.stringify(result));
    assert.ok(states.includes("processing"), "the document is polled until AVAILABLE");
    const post = li.posts.get((result as { networkPostId: string }).networkPostId)!;
    const docUrn = post.content?.media?.id ?? "";
    assert.match(docUrn, /^urn:li:document:/);
    assert.equal(post.content?.media?.title, "Glow Serum: brighter skin");
    assert.equal(post.content?.multiImage, undefined);
    assert.equal(li.postsCreated - postsBefore, 1);
    assert.equal(documentsMade() - docsBefore, 1);
    assert.equal((job.delivery.networkIds.document as { document: string }).document, docUrn, "URN saved");

    const doc = li.documents.get(docUrn)!;
    assert.equal(doc.status, "AVAILABLE");
    const pdf = await PDFDocument.load(doc.pdf!);
    assert.equal(pdf.getPageCount(), 3);
    assert.equal(pdf.getTitle(), "Glow Serum: brighter skin");
    assert.deepEqual(
      pdf.getPages().map((p) => [p.getWidth(), p.getHeight()]),
      [
        [1080, 1350],
        [1080, 1350],
        [600, 750],
      ],
      "each page at its slide's size (aspect ratio kept)",
    );
    // Page 1 shows slide 1: its image is slide 1's JPEG, byte for byte, drawn over the whole page.
    const first = pageImage(pdf, 0);
    assert.equal(first.dict.get(PDFName.of("Filter"))?.toString(), "/DCTDecode");
    assert.ok(Buffer.from(first.bytes).equals(slides[0]!.bytes), "page 1 is slide 1");
    assert.match(pageOperators(pdf, 0), /1080 0 0 1350 0 0 cm/, "the image fills the page");
    // Page 3 shows the PNG: the same pixels (lossless).
    const third = pageImage(pdf, 2);
    const want = await sharp(pngSlide).removeAlpha().raw().toBuffer();
    assert.ok(inflateSync(Buffer.from(third.bytes)).equals(want), "page 3 has the PNG's pixels");
  });

  test("page 1 of the document, rendered, is slide 1 (poppler's pdftoppm at 72 dpi: one pixel per point)", async () => {
    const pdf = await buildSlidesPdf(
      slides.slice(0, 2).map((s) => ({ bytes: s.bytes, mime: "image/jpeg" })),
      "Glow Serum: brighter skin",
    );
    const page1 = await renderPdfPage(pdf.bytes, 1);
    const slide1 = await sharp(slides[0]!.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([page1.info.width, page1.info.height], [1080, 1350], "the page at the slide's size");
    const diff = meanAbsoluteDifference(page1.data, slide1.data);
    // Two JPEG decoders (poppler's, libvips') differ by a level or two per channel at most.
    assert.ok(diff < 3, `page 1 differs from slide 1 by ${diff.toFixed(2)} levels per channel on average`);
    // And it is not just any slide: slide 2 differs from page 1 far more.
    const slide2 = await sharp(slides[1]!.bytes).removeAlpha().raw().toBuffer();
    assert.ok(meanAbsoluteDifference(page1.data, slide2) > diff * 2 + 1, "page 1 is not slide 2");
  });

  test("linkedin_carousel: images keeps the multi-image post, no document", async () => {
    const m = li.addMember({ name: "Images Admin", pages: [{ name: "Images Co" }] });
    const docsBefore = documentsMade();
    const { result } = await drive(
      adapter().publisher,
      liJob(m, { settings: { linkedin_carousel: "images" } }),
    );
    assert.equal(result.state, "published");
    const post = li.posts.get((result as { networkPostId: string }).networkPostId)!;
    assert.equal(post.content?.multiImage?.images.length, 3);
    assert.equal(documentsMade() - docsBefore, 0);
  });

  test("the fake refuses a post naming a document that is not AVAILABLE, with LinkedIn's 422", async () => {
    const m = li.addMember({ name: "Early Admin" });
    const headers = {
      authorization: `Bearer ${m.accessToken}`,
      "linkedin-version": "202601",
      "x-restli-protocol-version": "2.0.0",
      "content-type": "application/json",
    };
    const init = await fetch(
      http.overrideUrl("https://api.linkedin.com/rest/documents?action=initializeUpload"),
      {
        method: "POST",
        headers,
        body: JSON.stringify({ initializeUploadRequest: { owner: m.urn } }),
      },
    );
    const { value } = (await init.json()) as { value: { document: string } };
    const res = await fetch(http.overrideUrl("https://api.linkedin.com/rest/posts"), {
      method: "POST",
      headers,
      body: JSON.stringify({
        author: m.urn,
        commentary: "too early",
        visibility: "PUBLIC",
        distribution: {
          feedDistribution: "MAIN_FEED",
          targetEntities: [],
          thirdPartyDistributionChannels: [],
        },
        lifecycleState: "PUBLISHED",
        content: { media: { id: value.document, title: "Slides" } },
      }),
    });
    assert.equal(res.status, 422);
    assert.deepEqual(await res.json(), {
      status: 422,
      message: `/content/media/id :: ${value.document} is not available for ${m.urn}`,
      code: "INVALID_VALUE",
    });
  });

  test("a lost answer to the document's PUT: the status read settles it, one document, one PUT, one post", async () => {
    const m = li.addMember({ name: "Lost Put Admin", pages: [{ name: "Lost Put Co" }] });
    const postsBefore = li.postsCreated;
    const docsBefore = documentsMade();
    const putsBefore = documentPuts().length;
    const job = liJob(m);
    server.fault({ host: LI_WWW_HOST, path: /uploaded-document/, method: "PUT" }, { kind: "lost" });
    await assert.rejects(adapter().publisher.step(job, saverFor(job)), NetworkTransientError);
    const saved = job.delivery.networkIds.document as {
      document: string;
      putSentAt?: string;
      uploaded?: boolean;
    };
    assert.ok(saved.document && saved.putSentAt && !saved.uploaded, "URN and the PUT marker saved first");
    assert.deepEqual(await adapter().publisher.reconcile(job, saverFor(job)), { state: "not_created" });
    const { result } = await drive(adapter().publisher, job);
    assert.equal(result.state, "published");
    assert.equal(documentsMade() - docsBefore, 1, "one document");
    assert.equal(documentPuts().length - putsBefore, 1, "the PDF sent once");
    assert.equal(li.postsCreated - postsBefore, 1, "one post");
  });

  test("a lost answer to the post's create: reconciled by the document URN, one document, one post", async () => {
    const m = li.addMember({ name: "Lost Post Admin", pages: [{ name: "Lost Post Co" }] });
    const postsBefore = li.postsCreated;
    const docsBefore = documentsMade();
    const job = liJob(m);
    server.fault({ host: LI_API_HOST, path: "/rest/posts", method: "POST" }, { kind: "lost" });
    const a = adapter();
    const save = saverFor(job);
    let err: unknown;
    for (let i = 0; i < 10 && !err; i++)
      await a.publisher.step(job, save).then(
        (r) => assert.equal(r.state, "processing"),
        (e: unknown) => {
          err = e;
        },
      );
    assert.ok(err instanceof NetworkTransientError && err.afterCreate, "afterCreate transient error");
    const r = await a.publisher.reconcile(job, save);
    assert.equal(r.state, "published");
    assert.equal((await a.publisher.step(job, save)).state, "published");
    assert.equal(li.postsCreated - postsBefore, 1, "exactly one post");
    assert.equal(documentsMade() - docsBefore, 1, "exactly one document");
  });
});

describe("limits", () => {
  test("rules.ts holds LinkedIn's document limits with their source; more pages than 300 are refused before any upload", async () => {
    const rules = NETWORK_RULES.linkedin.document!;
    assert.deepEqual([rules.maxBytes, rules.maxPages], [100 * 1024 * 1024, 300]);
    assert.match(rules.source, /documents-api$/);
    const tiny = { bytes: new Uint8Array(slides[0]!.bytes), mime: "image/jpeg" };
    await assert.rejects(
      buildSlidesPdf(
        Array.from({ length: 301 }, () => tiny),
        "Too long",
      ),
      (e: unknown) =>
        e instanceof NetworkRejectedError && /at most 300 pages; this one has 301/.test(e.message),
    );
    await assert.rejects(
      buildSlidesPdf([{ bytes: new Uint8Array(8), mime: "image/webp" }], "Webp"),
      (e: unknown) => e instanceof NetworkRejectedError && /JPEG or PNG/.test(e.message),
    );
  });
});

/** The operators of `page`'s content streams as text (pdf-lib writes them Flate-compressed). */
function pageOperators(pdf: PDFDocument, page: number): string {
  const contents = pdf.context.lookup(pdf.getPage(page).node.get(PDFName.of("Contents")));
  const streams =
    contents instanceof PDFArray ? contents.asArray().map((r) => pdf.context.lookup(r)) : [contents];
  return streams
    .map((s) => {
      const bytes = Buffer.from((s as PDFRawStream).contents);
      const filter = (s as PDFRawStream).dict.get(PDFName.of("Filter"))?.toString();
      return (filter === "/FlateDecode" ? inflateSync(bytes) : bytes).toString("latin1");
    })
    .join("\n");
}
