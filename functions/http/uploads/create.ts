import { created, httpHandler } from "../../shared/http/handler.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { assertUploadable, uploadFile } from "../../shared/domain/uploads.ts";
import { createUploadTarget } from "../../shared/workflows/uploads.ts";

/** createUpload: a presigned PUT URL for one file; the client must send the declared Content-Type and size. */
export const handler = httpHandler({ path: namespacePath, namespace: "active", body: uploadFile }, async ({ namespace, body }) => {
  assertUploadable([body], "");
  return created(await createUploadTarget(namespace.id, body));
});
