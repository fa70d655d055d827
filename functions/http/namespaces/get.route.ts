import type { RouteContract } from "../../shared/http/contract.ts";
import { updateNamespaceBody } from "../../shared/domain/namespace.ts";
import { namespacePath } from "../../shared/domain/params.ts";

export const getNamespace = {
  operationId: "getNamespace",
  method: "GET",
  path: "/v1/namespace/{namespaceId}",
  summary: "Get a namespace",
  tag: "Namespaces",
  request: { path: namespacePath, namespace: "any" },
  response: { status: 200, data: "Namespace" },
} as const satisfies RouteContract;
