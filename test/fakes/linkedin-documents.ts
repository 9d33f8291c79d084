/**
 * The Documents API of the LinkedIn fake (./linkedin.ts), as
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/documents-api describes it:
 * - `POST /rest/documents?action=initializeUpload {initializeUploadRequest:{owner}}` (the owner must be the
 *   member, or a page they administer, with the write scope) -> `{value:{uploadUrlExpiresAt, uploadUrl,
 *   document}}`;
 * - `PUT {uploadUrl}` with the bearer token: the file (PPT, PPTX, DOC, DOCX or PDF; this fake reads PDFs
 *   only), at most 100 MB and 300 pages; a file already uploaded is refused (400); a file that is not a
 *   readable PDF or breaks a limit makes the document PROCESSING_FAILED;
 * - `GET /rest/documents/{urn}` -> `{id, owner, status}`: PROCESSING for `processingPolls` reads, then
 *   AVAILABLE.
 * A post's `content.media.id` may name a document only once it is AVAILABLE and owned by the author
 * (./linkedin.ts `createPost`, the same 422 as images and videos). Documents initialized are counted
 * (`linkedin.documents`).
 */
import { randomBytes } from "node:crypto";
import { PDFDocument } from "pdf-lib";
import type { FakeRequest, FakeResponse } from "./server.ts";

/** A document as the fake holds it; `pdf` is the file uploaded. */
export interface LinkedInDocument {
  urn: string;
  owner: string;
  key: string;
  status: "WAITING_UPLOAD" | "PROCESSING" | "AVAILABLE" | "PROCESSING_FAILED";
  pollsLeft: number;
  pdf?: Buffer;
  pages?: number;
  title?: string | undefined;
}

/** The Documents API's limits (the reference page above). */
export const LI_DOCUMENT_MAX_BYTES = 100 * 1024 * 1024;
export const LI_DOCUMENT_MAX_PAGES = 300;

type Member = { member: { urn: string }; scopes: string[] };

/** What the documents routes need from the fake. */
export interface DocumentsHost {
  readonly documents: Map<string, LinkedInDocument>;
  processingPolls: number;
  readonly server: {
    urlFor(host: string, path: string): string;
    count(name: string): void;
    route(method: string, host: string, path: string, handler: (req: FakeRequest) => unknown): void;
  };
  rest(req: FakeRequest, handler: (m: Member) => FakeResponse | Promise<FakeResponse>): unknown;
  token(req: FakeRequest): { sub: string } | FakeResponse;
  mayAct(m: Member, author: string, mode: "w" | "r"): boolean;
  error(status: number, message: string, code?: string, serviceErrorCode?: number): FakeResponse;
}

/** Mounts the Documents API routes on the fake's hosts. */
export function mountDocuments(fake: DocumentsHost, apiHost: string, wwwHost: string): void {
  const s = fake.server;
  s.route("POST", apiHost, "/rest/documents", (req) =>
    fake.rest(req, (m) => initialize(fake, req, m, wwwHost)),
  );
  s.route("GET", apiHost, "/rest/documents/:urn", (req) => fake.rest(req, (m) => read(fake, req, m)));
  s.route("PUT", wwwHost, "/dms-uploads/sp/:key/uploaded-document/0", (req) => upload(fake, req));
}

function initialize(fake: DocumentsHost, req: FakeRequest, m: Member, wwwHost: string): FakeResponse {
  if (req.query.get("action") !== "initializeUpload")
    return fake.error(400, "Unsupported action", "ILLEGAL_ARGUMENT");
  const owner = (req.json() as { initializeUploadRequest?: { owner?: string } })?.initializeUploadRequest
    ?.owner;
  if (!owner)
    return fake.error(
      422,
      "/initializeUploadRequest/owner :: field is required but not found",
      "FIELD_MISSING",
    );
  if (!fake.mayAct(m, owner, "w"))
    return fake.error(
      403,
      "Not enough permissions to access: documents.ACTION-initializeUpload",
      "ACCESS_DENIED",
      100,
    );
  const key = `D${randomBytes(9).toString("base64url")}`;
  const doc: LinkedInDocument = {
    urn: `urn:li:document:${key}`,
    owner,
    key,
    status: "WAITING_UPLOAD",
    pollsLeft: fake.processingPolls,
  };
  fake.documents.set(doc.urn, doc);
  fake.server.count("linkedin.documents");
  return {
    body: {
      value: {
        uploadUrlExpiresAt: Date.now() + 86_400_000,
        uploadUrl: `${fake.server.urlFor(wwwHost, `/dms-uploads/sp/${key}/uploaded-document/0`)}?ca=vector_feedshare&cn=uploads&sync=0&v=beta`,
        document: doc.urn,
      },
    },
  };
}

async function upload(fake: DocumentsHost, req: FakeRequest): Promise<FakeResponse> {
  const doc = [...fake.documents.values()].find((d) => d.key === req.params.key);
  if (!doc) return { status: 404 };
  const rec = fake.token(req);
  if (!("sub" in rec)) return rec;
  if (doc.status !== "WAITING_UPLOAD") return { status: 400, body: { message: "Document already uploaded" } };
  doc.pdf = Buffer.from(req.body);
  doc.status = "PROCESSING_FAILED";
  if (doc.pdf.length > LI_DOCUMENT_MAX_BYTES || doc.pdf.subarray(0, 5).toString("latin1") !== "%PDF-")
    return { status: 201 };
  try {
    const pdf = await PDFDocument.load(doc.pdf, { updateMetadata: false });
    doc.pages = pdf.getPageCount();
    doc.title = pdf.getTitle();
    if (doc.pages >= 1 && doc.pages <= LI_DOCUMENT_MAX_PAGES) doc.status = "PROCESSING";
  } catch {
    // Not a readable PDF: LinkedIn fails its processing.
  }
  return { status: 201 };
}

function read(fake: DocumentsHost, req: FakeRequest, m: Member): FakeResponse {
  const doc = fake.documents.get(req.params.urn!);
  if (!doc) return fake.error(404, "Document not found", "NOT_FOUND");
  if (!fake.mayAct(m, doc.owner, "w") && !fake.mayAct(m, doc.owner, "r"))
    return fake.error(403, "Not enough permissions to access: documents.GET", "ACCESS_DENIED", 100);
  if (doc.status === "PROCESSING") {
    if (doc.pollsLeft > 0) doc.pollsLeft -= 1;
    else doc.status = "AVAILABLE";
  }
  return { body: { id: doc.urn, owner: doc.owner, status: doc.status } };
}
