import type { RouteContract } from "../../shared/http/contract.ts";
import { documentPath } from "../../shared/domain/params.ts";

export const createFileDownloadUrl = {
  operationId: "createFileDownloadUrl",
  method: "POST",
  path: "/v1/namespace/{namespaceId}/documents/{documentId}/file-download-url",
  summary: "Download URL of the uploaded file",
  tag: "Documents",
  request: { path: documentPath, tenant: true, namespace: "any" },
  response: { status: 200, data: "DownloadUrl" },
} as const satisfies RouteContract;
