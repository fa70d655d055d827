import { httpHandler, ok } from "../../shared/http/handler.ts";
import { documentPath } from "../../shared/domain/params.ts";
import { documentFileUrl } from "../../shared/workflows/downloads.ts";

/** createFileDownloadUrl: a presigned GET of the uploaded source file, saved under the document's name. */
export const handler = httpHandler({ path: documentPath, tenant: true, namespace: "any" }, async ({ namespace, tenantId, path }) => {
  return ok({ url: await documentFileUrl(namespace.id, tenantId, path.documentId) });
});
