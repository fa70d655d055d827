import type { RouteContract } from "../../shared/http/contract.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { uploadBatchBody } from "../../shared/domain/uploads.ts";

export const createUploads = {
  operationId: "createUploads",
  method: "POST",
  path: "/v1/namespace/{namespaceId}/uploads/batch",
  summary: "Presigned URLs for a batch of files",
  tag: "Uploads",
  request: { path: namespacePath, namespace: "active", body: uploadBatchBody },
  response: { status: 201, data: "UploadTarget", list: true },
} as const satisfies RouteContract;
