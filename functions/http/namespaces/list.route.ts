import type { RouteContract } from "../../shared/http/contract.ts";

export const listNamespaces = {
  operationId: "listNamespaces",
  method: "GET",
  path: "/v1/namespace",
  summary: "List namespaces",
  tag: "Namespaces",
  request: {},
  response: { status: 200, data: "Namespace", list: true },
} as const satisfies RouteContract;
