import type { RouteContract } from "../../shared/http/contract.ts";
import { updateHostingBody } from "../../shared/domain/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";

export const getHosting = {
  operationId: "getHosting",
  method: "GET",
  path: "/v1/namespace/{namespaceId}/hosting",
  summary: "Get the hosting configuration",
  tag: "Hosting",
  request: { path: namespacePath, namespace: "any" },
  response: { status: 200, data: "Hosting" },
} as const satisfies RouteContract;
