import type { RouteContract } from "../../shared/http/contract.ts";
import { jobPath } from "../../shared/domain/params.ts";

export const getIngestJob = {
  operationId: "getIngestJob",
  method: "GET",
  path: "/v1/namespace/{namespaceId}/ingest-jobs/{jobId}",
  summary: "Get an ingest job",
  tag: "Ingest jobs",
  request: { path: jobPath, tenant: true, namespace: "any" },
  response: { status: 200, data: "IngestJob" },
} as const satisfies RouteContract;
