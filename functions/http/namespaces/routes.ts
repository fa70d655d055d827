import type { RouteContract } from "../../shared/http/contract.ts";
import { createNamespaceBody, updateNamespaceBody } from "../../shared/domain/namespace.ts";
import { namespacePath } from "../../shared/domain/params.ts";

const NAMESPACE = "/v1/namespace/{namespaceId}";
/** PATCH and PUT (an alias) read the same request. */
const updateRequest = { path: namespacePath, namespace: "active", body: updateNamespaceBody } as const;
const updateConflicts = "the slug is taken, or the namespace changed meanwhile";

export const listNamespaces = {
  operationId: "listNamespaces",
  method: "GET",
  path: "/v1/namespace",
  summary: "List namespaces",
  tag: "Namespaces",
  request: {},
  response: { status: 200, data: "Namespace", list: true },
} as const satisfies RouteContract;

export const createNamespace = {
  operationId: "createNamespace",
  method: "POST",
  path: "/v1/namespace",
  summary: "Create a namespace",
  tag: "Namespaces",
  conflicts: "the slug is taken in this organization",
  request: { body: createNamespaceBody },
  response: { status: 201, data: "Namespace" },
} as const satisfies RouteContract;

export const getNamespace = {
  operationId: "getNamespace",
  method: "GET",
  path: NAMESPACE,
  summary: "Get a namespace",
  tag: "Namespaces",
  request: { path: namespacePath, namespace: "any" },
  response: { status: 200, data: "Namespace" },
} as const satisfies RouteContract;

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

export const deleteNamespace = {
  operationId: "deleteNamespace",
  method: "DELETE",
  path: NAMESPACE,
  summary: "Delete a namespace and everything in it (queued)",
  tag: "Namespaces",
  conflicts: "the namespace is already being deleted",
  request: { path: namespacePath, namespace: "any" },
  response: { status: 200, data: "Namespace" },
} as const satisfies RouteContract;
