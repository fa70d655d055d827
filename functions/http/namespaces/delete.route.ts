import type { RouteContract } from "../../shared/http/contract.ts";
import { updateNamespaceBody } from "../../shared/domain/namespace.ts";
import { namespacePath } from "../../shared/domain/params.ts";

export const deleteNamespace = {
  operationId: "deleteNamespace",
  method: "DELETE",
  path: "/v1/namespace/{namespaceId}",
  summary: "Delete a namespace and everything in it (queued)",
  tag: "Namespaces",
  conflicts: "the namespace is already being deleted",
  request: { path: namespacePath, namespace: "any" },
  response: { status: 200, data: "Namespace" },
} as const satisfies RouteContract;
