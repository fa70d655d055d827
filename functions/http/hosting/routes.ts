import type { RouteContract } from "../../shared/http/contract.ts";
import { updateHostingBody } from "../../shared/domain/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";

const HOSTING = "/v1/namespace/{namespaceId}/hosting";
/** PATCH and PUT (an alias) read the same request. */
const updateRequest = { path: namespacePath, namespace: "active", body: updateHostingBody } as const;
const updateConflicts = "the slug is taken, or the configuration changed meanwhile";

export const getHosting = {
  operationId: "getHosting",
  method: "GET",
  path: HOSTING,
  summary: "Get the hosting configuration",
  tag: "Hosting",
  request: { path: namespacePath, namespace: "any" },
  response: { status: 200, data: "Hosting" },
} as const satisfies RouteContract;

/** The body is ignored (the agentset SDK sends `{}`). */
export const enableHosting = {
  operationId: "enableHosting",
  method: "POST",
  path: HOSTING,
  summary: "Enable hosting",
  tag: "Hosting",
  conflicts: "hosting is already enabled",
  request: { path: namespacePath, namespace: "active" },
  response: { status: 201, data: "Hosting" },
} as const satisfies RouteContract;

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

export const deleteHosting = {
  operationId: "deleteHosting",
  method: "DELETE",
  path: HOSTING,
  summary: "Delete the hosting configuration",
  tag: "Hosting",
  conflicts: "the configuration changed meanwhile",
  request: { path: namespacePath, namespace: "any" },
  response: { status: 200, data: "Hosting" },
} as const satisfies RouteContract;
