/**
 * Image uploads of the LinkedIn Images API (networks.md 2.5;
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api):
 * `POST /rest/images?action=initializeUpload {initializeUploadRequest:{owner}}` ->
 * `{value:{uploadUrlExpiresAt, uploadUrl, image}}`, then `PUT` the bytes to `uploadUrl` (with the bearer
 * token, as documented) -> 201; the image URN (`urn:li:image:...`) goes into the post's content.
 *
 * Saved as each image advances (`images[i] = {image, uploadUrl, expiresAt, uploaded}`): a restarted step
 * uploads only what is missing, and an image whose upload URL expired before its bytes were sent is
 * initialized again (an unused image is not a post).
 */
import type { DeliveryJob, JobMedia } from "../network.ts";
import { NetworkTransientError } from "../network.ts";
import { readMediaBytes } from "../media-bytes.ts";
import { type LinkedInClient, linkedinRequest, putUploadBytes } from "./api.ts";

/** One image of a post as saved in the delivery's network ids. */
export interface SavedImage {
  /** The image URN. */
  image: string;
  uploadUrl: string;
  /** When `uploadUrl` stops working, epoch milliseconds. */
  expiresAt?: number | undefined;
  uploaded?: boolean | undefined;
}

/**
 * Uploads the post's images (in post order) that are not uploaded yet, saving each step.
 * @returns the image URNs in post order.
 * @throws the errors of ./api.ts; NetworkRejectedError when LinkedIn refuses the bytes.
 */
export async function uploadImages(
  client: LinkedInClient,
  job: DeliveryJob,
  owner: string,
  saved: readonly SavedImage[] | undefined,
  save: (images: SavedImage[]) => Promise<void>,
): Promise<string[]> {
  const images = [...(saved ?? [])];
  const media = job.post.media;
  for (let i = 0; i < media.length; i++) {
    let entry = images[i];
    if (entry?.uploaded) continue;
    if (!entry || (entry.expiresAt !== undefined && entry.expiresAt <= client.now().getTime())) {
      const r = await linkedinRequest<{
        value?: { uploadUrl?: string; uploadUrlExpiresAt?: number; image?: string };
      }>(client, {
        method: "POST",
        path: "/rest/images?action=initializeUpload",
        json: { initializeUploadRequest: { owner } },
        accessToken: job.account.tokens.accessToken,
        signal: job.signal,
      });
      const v = r.body.value;
      if (!v?.image || !v.uploadUrl) throw new NetworkTransientError("LinkedIn answered no image upload URL");
      entry = { image: v.image, uploadUrl: v.uploadUrl, expiresAt: v.uploadUrlExpiresAt };
      images[i] = entry;
      await save([...images]);
    }
    await putImage(client, job, media[i]!, entry, i);
    images[i] = { ...entry, uploaded: true };
    await save([...images]);
  }
  return images.slice(0, media.length).map((e) => e.image);
}

async function putImage(
  client: LinkedInClient,
  job: DeliveryJob,
  media: JobMedia,
  entry: SavedImage,
  index: number,
): Promise<void> {
  await putUploadBytes(
    client,
    {
      url: entry.uploadUrl,
      bytes: await readMediaBytes(media),
      contentType: media.mime || "application/octet-stream",
      accessToken: job.account.tokens.accessToken,
      signal: job.signal,
      timeoutSeconds: 120,
    },
    `image ${index + 1}`,
  );
}
