import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./file-download-url.route.ts";
import { documentFileUrl } from "../../shared/workflows/downloads.ts";

/** createFileDownloadUrl: a presigned GET of the uploaded source file, saved under the document's name. */
export const handler = httpHandler(route.createFileDownloadUrl, async ({ namespace, tenantId, path }) => {
  return ok({ url: await documentFileUrl(namespace.id, tenantId, path.documentId) });
});
