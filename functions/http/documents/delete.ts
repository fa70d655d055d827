import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./delete.route.ts";
import { loadDocumentForRequest } from "../../shared/workflows/ingestion/lookups.ts";
import { readDocumentToWire } from "../../shared/workflows/records-to-wire.ts";
import { requestDocumentDeletion } from "../../shared/workflows/deletion/requests.ts";

/** deleteDocument: 200 with the document now QUEUED_FOR_DELETE. */
export const handler = httpHandler(route.deleteDocument, async ({ namespace, tenantId, path }) => {
  const document = await requestDocumentDeletion(await loadDocumentForRequest(namespace.id, tenantId, path.documentId));
  return ok(await readDocumentToWire(document));
});
