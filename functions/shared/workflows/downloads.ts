import type { DocumentRecord } from "../domain/document.ts";
import { conflict, invalidRequest, notFound } from "../domain/errors.ts";
import { headObject } from "../storage/objects.ts";
import { chunksKey, fileNameOfKey } from "../storage/object-keys.ts";
import { presignDownload } from "../storage/presign.ts";
import { loadDocumentForRequest } from "./ingestion/lookups.ts";

/** createFileDownloadUrl: a presigned GET of the uploaded source file, saved under the document's name. */
export async function documentFileUrl(namespaceId: string, tenantId: string | null, documentId: string): Promise<string> {
  const document = await loadDocumentForRequest(namespaceId, tenantId, documentId);
  if (document.source.type !== "MANAGED_FILE") {
    throw invalidRequest(`Document ${document.id} has a ${document.source.type} source; only MANAGED_FILE documents have a stored file.`);
  }
  return storedFileUrl(document, document.source.key, () => notFound(`The stored file of document ${document.id} no longer exists.`));
}

/**
 * A presigned GET of a document's stored file, with the type it was stored with and the document's
 * name (else the key's); `whenGone` when the object is no longer there.
 */
export async function storedFileUrl(document: Pick<DocumentRecord, "name">, key: string, whenGone: () => Error, expiresInSeconds?: number): Promise<string> {
  const head = await headObject(key);
  if (!head) throw whenGone();
  return presignDownload(key, document.name ?? fileNameOfKey(key), head.contentType, expiresInSeconds);
}

/** createChunksDownloadUrl: a presigned GET of the chunks file (JSON) of a COMPLETED document. */
export async function documentChunksUrl(namespaceId: string, tenantId: string | null, documentId: string): Promise<string> {
  const document = await loadDocumentForRequest(namespaceId, tenantId, documentId);
  if (document.status !== "COMPLETED") {
    throw conflict(`Document ${document.id} is ${document.status}; chunks can be downloaded once it is COMPLETED.`);
  }
  return presignDownload(chunksKey(document.namespaceId, document.id), `${document.id}-chunks.json`, "application/json");
}
