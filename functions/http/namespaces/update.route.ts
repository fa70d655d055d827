import type { RouteContract } from "../../shared/http/contract.ts";
import { updateNamespaceBody } from "../../shared/domain/namespace.ts";
import { namespacePath } from "../../shared/domain/params.ts";

const NAMESPACE = "/v1/namespace/{namespaceId}";
/** PATCH and PUT (an alias) read the same request. */
const updateRequest = { path: namespacePath, namespace: "active", body: updateNamespaceBody } as const;
const updateConflicts = "the slug is taken, or the namespace changed meanwhile";

export const updateNamespace = {
  operationId: "updateNamespace",
  method: "PATCH",
  path: NAMESPACE,
  summary: "Update a namespace",
  tag: "Namespaces",
  conflicts: updateConflicts,
  request: updateRequest,
  response: { status: 200, data: "Namespace" },
} as const satisfies RouteContract;

export const replaceNamespace = {
  operationId: "replaceNamespace",
  method: "PUT",
  path: NAMESPACE,
  summary: "Update a namespace (PUT form)",
  tag: "Namespaces",
  conflicts: updateConflicts,
  request: updateRequest,
  response: { status: 200, data: "Namespace" },
} as const satisfies RouteContract;
