import { mapLimited } from "../../shared/platform/concurrency.ts";
import { created, httpHandler } from "../../shared/http/handler.ts";
import * as route from "./create-batch.route.ts";
import { assertUploadable } from "../../shared/domain/uploads.ts";
import { createUploadTarget } from "../../shared/workflows/uploads.ts";

/** createUploads: presigned URLs for 1 to 100 files, in request order; one invalid file fails the batch. */
export const handler = httpHandler(route.createUploads, async ({ namespace, body }) => {
  assertUploadable(body.files, "files");
  return created(await mapLimited(body.files, 16, (file) => createUploadTarget(namespace.id, file)));
});
