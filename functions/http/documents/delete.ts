import { httpHandler, ok } from "../../shared/http/handler.ts";
import { loadDocumentForRequest } from "../../shared/workflows/ingestion/lookups.ts";
import { documentPath } from "../../shared/domain/params.ts";
import { documentsToWire } from "../../shared/workflows/records-to-wire.ts";
import { requestDocumentDeletion } from "../../shared/workflows/deletion/requests.ts";

/** deleteDocument: 200 with the document now QUEUED_FOR_DELETE. */
export const handler = httpHandler({ path: documentPath, tenant: true, namespace: "any" }, async ({ namespace, tenantId, path }) => {
  const document = await requestDocumentDeletion(await loadDocumentForRequest(namespace.id, tenantId, path.documentId));
  const [wire] = await documentsToWire([document]);
  return ok(wire);
});
