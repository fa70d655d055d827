import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./get.route.ts";
import { loadDocumentForRequest } from "../../shared/workflows/ingestion/lookups.ts";
import { readDocumentToWire } from "../../shared/workflows/records-to-wire.ts";

export const handler = httpHandler(route.getDocument, async ({ namespace, tenantId, path }) => {
  const document = await loadDocumentForRequest(namespace.id, tenantId, path.documentId);
  return ok(await readDocumentToWire(document));
});
