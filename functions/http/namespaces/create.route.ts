import type { RouteContract } from "../../shared/http/contract.ts";
import { createNamespaceBody } from "../../shared/domain/namespace.ts";

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
