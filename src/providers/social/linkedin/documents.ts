/**
 * LinkedIn document posts: a post of several images (a carousel) goes to LinkedIn as one PDF document that
 * members page through, unless the account's `linkedin_carousel` setting is `images` (then a multiImage
 * post, ./publisher.ts). Documents API
 * (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/documents-api):
 * 1. `POST /rest/documents?action=initializeUpload {initializeUploadRequest:{owner}}` ->
 *    `{value:{uploadUrlExpiresAt, uploadUrl, document}}` (`urn:li:document:...`);
 * 2. `PUT` the PDF to `uploadUrl` with the bearer token;
 * 3. `GET /rest/documents/{document urn}` until `status` is `AVAILABLE` (`WAITING_UPLOAD`, `PROCESSING`;
 *    `PROCESSING_FAILED` -> the delivery fails).
 * The post then carries `content:{media:{id: document URN, title}}` (Posts API,
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api).
 *
 * The PDF is built from the post's images by ./document-pdf.ts before anything is created (a document
 * LinkedIn would refuse creates nothing). Saved as it goes (`SavedDocument`): the document URN and upload URL
 * the moment initializeUpload answers, `putSentAt` before the PUT, `uploaded` after it. A step that finds
 * `putSentAt` without `uploaded` (the PUT's answer was lost) reads the document's status first: anything but
 * `WAITING_UPLOAD` means the bytes arrived, and the PDF is not sent again.
 */
import { readMediaBytes } from "../media-bytes.ts";
import type { DeliveryJob, JobMedia } from "../network.ts";
import { NetworkTransientError } from "../network.ts";
import { encodeUrn, type LinkedInClient, linkedinRequest, putUploadBytes } from "./api.ts";
import { buildSlidesPdf } from "./document-pdf.ts";

/** The per-account setting choosing how a LinkedIn carousel goes out (/settings/social). */
export const LINKEDIN_CAROUSEL_SETTING = "linkedin_carousel";
/** The setting's values: `document` (the default: one PDF, a page per slide) or `images` (multiImage). */
export const LINKEDIN_CAROUSEL_VALUES = ["document", "images"] as const;

/** The title a document gets when its post has none. */
export const UNTITLED_DOCUMENT = "Slides";

/** The upload state of a post's document as saved in the delivery's network ids. */
export interface SavedDocument {
  /** The document URN (`urn:li:document:...`). */
  document?: string | undefined;
  uploadUrl?: string | undefined;
  /** When `uploadUrl` stops working, epoch milliseconds. */
  expiresAt?: number | undefined;
  /** Pages of the PDF sent. */
  pages?: number | undefined;
  /** Set just before the PUT (ISO time). */
  putSentAt?: string | undefined;
  uploaded?: boolean | undefined;
}

/** Where the document stands after one step. */
export type DocumentProgress =
  | { kind: "processing" }
  | { kind: "failed"; reason: string }
  | { kind: "available"; document: string; title: string };

/**
 * Whether a post of `media` to an account with `settings` goes to LinkedIn as a document: two or more images
 * and the account's `linkedin_carousel` is not `images`.
 */
export function sendsAsDocument(
  media: ReadonlyArray<Pick<JobMedia, "kind">>,
  settings: Record<string, unknown>,
): boolean {
  return (
    media.length >= 2 &&
    media.every((m) => m.kind === "image") &&
    settings[LINKEDIN_CAROUSEL_SETTING] !== "images"
  );
}

/** The document's title: the first non-empty line of the post's title, else `UNTITLED_DOCUMENT`. */
export function documentTitle(title: string | null): string {
  const line = (title ?? "")
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  return line ?? UNTITLED_DOCUMENT;
}

interface DocumentStatus {
  status?: string;
}

/**
 * Advances the document of `job` (its images as PDF pages) by one step: builds and uploads it, then reads its
 * status.
 * @throws the errors of ./api.ts; NetworkRejectedError when the PDF breaks LinkedIn's limits or LinkedIn
 *   refuses the bytes.
 */
export async function advanceDocument(
  client: LinkedInClient,
  job: DeliveryJob,
  owner: string,
  saved: SavedDocument | undefined,
  save: (document: SavedDocument) => Promise<void>,
): Promise<DocumentProgress> {
  const token = job.account.tokens.accessToken;
  let d: SavedDocument = { ...(saved ?? {}) };
  const update = async (patch: SavedDocument) => {
    d = { ...d, ...patch };
    await save(d);
  };
  if (!d.uploaded && d.document && d.putSentAt) {
    // An earlier PUT may have landed without its answer reaching us.
    const status = await documentStatus(client, job, d.document);
    if (status.status !== undefined && status.status !== "WAITING_UPLOAD") await update({ uploaded: true });
  }
  if (!d.uploaded) {
    const images = await Promise.all(
      job.post.media.map(async (m) => ({ bytes: await readMediaBytes(m), mime: m.mime })),
    );
    const pdf = await buildSlidesPdf(images, documentTitle(job.post.title));
    const expired = d.expiresAt !== undefined && d.expiresAt <= client.now().getTime();
    if (!d.document || expired) {
      const r = await linkedinRequest<{
        value?: { uploadUrl?: string; uploadUrlExpiresAt?: number; document?: string };
      }>(client, {
        method: "POST",
        path: "/rest/documents?action=initializeUpload",
        json: { initializeUploadRequest: { owner } },
        accessToken: token,
        signal: job.signal,
      });
      const v = r.body.value;
      if (!v?.document || !v.uploadUrl)
        throw new NetworkTransientError("LinkedIn answered no document upload URL");
      d = {};
      await update({ document: v.document, uploadUrl: v.uploadUrl, expiresAt: v.uploadUrlExpiresAt });
    }
    await update({ pages: pdf.pages, putSentAt: client.now().toISOString() });
    await putUploadBytes(
      client,
      {
        url: d.uploadUrl!,
        bytes: Buffer.from(pdf.bytes),
        contentType: "application/pdf",
        accessToken: token,
        signal: job.signal,
        timeoutSeconds: 300,
      },
      `document of ${pdf.pages} pages`,
    );
    await update({ uploaded: true });
  }
  const status = await documentStatus(client, job, d.document!);
  if (status.status === "AVAILABLE")
    return { kind: "available", document: d.document!, title: documentTitle(job.post.title) };
  if (status.status === "PROCESSING_FAILED")
    return { kind: "failed", reason: "LinkedIn could not process the document of the post's slides." };
  return { kind: "processing" };
}

async function documentStatus(
  client: LinkedInClient,
  job: DeliveryJob,
  document: string,
): Promise<DocumentStatus> {
  const r = await linkedinRequest<DocumentStatus>(client, {
    method: "GET",
    path: `/rest/documents/${encodeUrn(document)}`,
    accessToken: job.account.tokens.accessToken,
    signal: job.signal,
  });
  return r.body;
}
