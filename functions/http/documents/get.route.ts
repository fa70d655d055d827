import type { RouteContract } from "../../shared/http/contract.ts";
import { documentPath } from "../../shared/domain/params.ts";

export const getDocument = {
  operationId: "getDocument",
  method: "GET",
  path: "/v1/namespace/{namespaceId}/documents/{documentId}",
  summary: "Get a document",
  tag: "Documents",
  request: { path: documentPath, tenant: true, namespace: "any" },
  response: { status: 200, data: "Document" },
} as const satisfies RouteContract;
