import type { RouteContract } from "../../shared/http/contract.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { uploadFile } from "../../shared/domain/uploads.ts";

export const createUpload = {
  operationId: "createUpload",
  method: "POST",
  path: "/v1/namespace/{namespaceId}/uploads",
  summary: "Presigned URL for one file",
  tag: "Uploads",
  description: "PUT the file to `url` with the declared Content-Type and size; then ingest it as a MANAGED_FILE with `key`.",
  request: { path: namespacePath, namespace: "active", body: uploadFile },
  response: { status: 201, data: "UploadTarget" },
} as const satisfies RouteContract;
