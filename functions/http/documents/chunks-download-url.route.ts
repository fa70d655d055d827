import type { RouteContract } from "../../shared/http/contract.ts";
import { documentPath } from "../../shared/domain/params.ts";

export const createChunksDownloadUrl = {
  operationId: "createChunksDownloadUrl",
  method: "POST",
  path: "/v1/namespace/{namespaceId}/documents/{documentId}/chunks-download-url",
  summary: "Download URL of the chunks JSON",
  tag: "Documents",
  conflicts: "the document is not COMPLETED",
  request: { path: documentPath, tenant: true, namespace: "any" },
  response: { status: 200, data: "DownloadUrl" },
} as const satisfies RouteContract;
