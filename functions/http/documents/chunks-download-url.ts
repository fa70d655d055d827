import { conflict } from "../../shared/domain/errors.ts";
import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./chunks-download-url.route.ts";
import { loadDocumentForRequest } from "../../shared/workflows/ingestion/lookups.ts";
import { chunksKey } from "../../shared/storage/object-keys.ts";
import { presignDownload } from "../../shared/storage/presign.ts";

/** createChunksDownloadUrl: a presigned GET of the chunks file (JSON) of a COMPLETED document. */
export const handler = httpHandler(route.createChunksDownloadUrl, async ({ namespace, tenantId, path }) => {
  const document = await loadDocumentForRequest(namespace.id, tenantId, path.documentId);
  if (document.status !== "COMPLETED") {
    throw conflict(`Document ${document.id} is ${document.status}; chunks can be downloaded once it is COMPLETED.`);
  }
  const url = await presignDownload(chunksKey(document.namespaceId, document.id), `${document.id}-chunks.json`, "application/json");
  return ok({ url });
});
