import type { UploadFile } from "../domain/uploads.ts";
import { newUploadKey } from "../storage/object-keys.ts";
import { presignUpload } from "../storage/presign.ts";

/** createUpload/createUploads: a fresh key under the namespace's uploads and a presigned PUT bound to the declared type and size. */
export async function createUploadTarget(namespaceId: string, file: UploadFile): Promise<{ url: string; key: string }> {
  const key = newUploadKey(namespaceId, file.fileName);
  return { url: await presignUpload(key, file.contentType, file.fileSize), key };
}
