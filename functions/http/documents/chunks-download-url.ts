import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./chunks-download-url.route.ts";
import { documentChunksUrl } from "../../shared/workflows/downloads.ts";

/** createChunksDownloadUrl: a presigned GET of the chunks file (JSON) of a COMPLETED document. */
export const handler = httpHandler(route.createChunksDownloadUrl, async ({ namespace, tenantId, path }) => {
  return ok({ url: await documentChunksUrl(namespace.id, tenantId, path.documentId) });
});
