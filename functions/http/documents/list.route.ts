import type { RouteContract } from "../../shared/http/contract.ts";
import { documentListQuery } from "../../shared/domain/list-query.ts";
import { documentPath, namespacePath } from "../../shared/domain/params.ts";

export const listDocuments = {
  operationId: "listDocuments",
  method: "GET",
  path: "/v1/namespace/{namespaceId}/documents",
  summary: "List documents",
  tag: "Documents",
  request: { path: namespacePath, tenant: true, namespace: "any", query: documentListQuery },
  response: { status: 200, data: "Document", list: true, paginated: true },
} as const satisfies RouteContract;
