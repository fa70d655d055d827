import type { RouteContract } from "../../shared/http/contract.ts";
import { documentPath } from "../../shared/domain/params.ts";

export const deleteDocument = {
  operationId: "deleteDocument",
  method: "DELETE",
  path: "/v1/namespace/{namespaceId}/documents/{documentId}",
  summary: "Delete a document (queued)",
  tag: "Documents",
  conflicts: "the document is already being deleted, or its job is still creating its documents",
  request: { path: documentPath, tenant: true, namespace: "any" },
  response: { status: 200, data: "Document" },
} as const satisfies RouteContract;
