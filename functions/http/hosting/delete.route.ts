import type { RouteContract } from "../../shared/http/contract.ts";
import { updateHostingBody } from "../../shared/domain/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";

export const deleteHosting = {
  operationId: "deleteHosting",
  method: "DELETE",
  path: "/v1/namespace/{namespaceId}/hosting",
  summary: "Delete the hosting configuration",
  tag: "Hosting",
  conflicts: "the configuration changed meanwhile",
  request: { path: namespacePath, namespace: "any" },
  response: { status: 200, data: "Hosting" },
} as const satisfies RouteContract;
