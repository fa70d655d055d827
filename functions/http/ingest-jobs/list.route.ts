import type { RouteContract } from "../../shared/http/contract.ts";
import { listQuery } from "../../shared/domain/list-query.ts";
import { namespacePath } from "../../shared/domain/params.ts";

export const listIngestJobs = {
  operationId: "listIngestJobs",
  method: "GET",
  path: "/v1/namespace/{namespaceId}/ingest-jobs",
  summary: "List ingest jobs",
  tag: "Ingest jobs",
  request: { path: namespacePath, tenant: true, namespace: "any", query: listQuery },
  response: { status: 200, data: "IngestJob", list: true, paginated: true },
} as const satisfies RouteContract;
