import { created, httpHandler } from "../../shared/http/handler.ts";
import * as route from "./create.route.ts";
import { assertUploadable } from "../../shared/domain/uploads.ts";
import { createUploadTarget } from "../../shared/workflows/uploads.ts";

/** createUpload: a presigned PUT URL for one file; the client must send the declared Content-Type and size. */
export const handler = httpHandler(route.createUpload, async ({ namespace, body }) => {
  assertUploadable([body], "");
  return created(await createUploadTarget(namespace.id, body));
});
