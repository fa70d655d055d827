import type { RouteContract } from "../../shared/http/contract.ts";
import { updateHostingBody } from "../../shared/domain/hosting.ts";
import { namespacePath } from "../../shared/domain/params.ts";

/** The body is ignored (the agentset SDK sends `{}`). */
export const enableHosting = {
  operationId: "enableHosting",
  method: "POST",
  path: "/v1/namespace/{namespaceId}/hosting",
  summary: "Enable hosting",
  tag: "Hosting",
  conflicts: "hosting is already enabled",
  request: { path: namespacePath, namespace: "active" },
  response: { status: 201, data: "Hosting" },
} as const satisfies RouteContract;
