import { invalidRequest, notFound } from "../../shared/domain/errors.ts";
import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./file-download-url.route.ts";
import { loadDocumentForRequest } from "../../shared/workflows/ingestion/lookups.ts";
import { headObject } from "../../shared/storage/objects.ts";
import { fileNameOfKey } from "../../shared/storage/object-keys.ts";
import { presignDownload } from "../../shared/storage/presign.ts";

/** createFileDownloadUrl: a presigned GET of the uploaded source file, saved under the document's name. */
export const handler = httpHandler(route.createFileDownloadUrl, async ({ namespace, tenantId, path }) => {
  const document = await loadDocumentForRequest(namespace.id, tenantId, path.documentId);
  if (document.source.type !== "MANAGED_FILE") {
    throw invalidRequest(`Document ${document.id} has a ${document.source.type} source; only MANAGED_FILE documents have a stored file.`);
  }
  const key = document.source.key;
  const head = await headObject(key);
  if (!head) throw notFound(`The stored file of document ${document.id} no longer exists.`);
  return ok({ url: await presignDownload(key, document.name ?? fileNameOfKey(key), head.contentType) });
});
