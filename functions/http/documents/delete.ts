import { httpHandler, ok } from "../../shared/http/handler.ts";
import { loadDocumentForRequest } from "../../shared/db/documents.ts";
import { documentPath } from "../../shared/domain/params.ts";
import { requestDocumentDeletion } from "../../shared/jobs/deletion.ts";
import { documentsToWire } from "../../shared/jobs/wire.ts";

/** E9: 200 with the document now QUEUED_FOR_DELETE. */
export const handler = httpHandler({ path: documentPath, tenant: true, namespace: "any" }, async ({ namespace, tenantId, path }) => {
  const document = await requestDocumentDeletion(await loadDocumentForRequest(namespace.id, tenantId, path.documentId));
  const [wire] = await documentsToWire([document]);
  return ok(wire);
});
