import type { RouteContract } from "../../shared/http/contract.ts";
import { updateHostingBody } from "../../shared/domain/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";

const HOSTING = "/v1/namespace/{namespaceId}/hosting";
/** PATCH and PUT (an alias) read the same request. */
const updateRequest = { path: namespacePath, namespace: "active", body: updateHostingBody } as const;
const updateConflicts = "the slug is taken, or the configuration changed meanwhile";

export const updateHosting = {
  operationId: "updateHosting",
  method: "PATCH",
  path: HOSTING,
  summary: "Update the hosting configuration",
  tag: "Hosting",
  conflicts: updateConflicts,
  request: updateRequest,
  response: { status: 200, data: "Hosting" },
} as const satisfies RouteContract;

export const replaceHosting = {
  operationId: "replaceHosting",
  method: "PUT",
  path: HOSTING,
  summary: "Update the hosting configuration (PUT form)",
  tag: "Hosting",
  conflicts: updateConflicts,
  request: updateRequest,
  response: { status: 200, data: "Hosting" },
} as const satisfies RouteContract;
