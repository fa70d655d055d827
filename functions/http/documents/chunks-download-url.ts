import { httpHandler, ok } from "../../shared/http/handler.ts";
import { documentPath } from "../../shared/domain/params.ts";
import { documentChunksUrl } from "../../shared/workflows/downloads.ts";

/** createChunksDownloadUrl: a presigned GET of the chunks file (JSON) of a COMPLETED document. */
export const handler = httpHandler({ path: documentPath, tenant: true, namespace: "any" }, async ({ namespace, tenantId, path }) => {
  return ok({ url: await documentChunksUrl(namespace.id, tenantId, path.documentId) });
});
