import type { RouteContract } from "../../shared/http/contract.ts";
import { jobPath } from "../../shared/domain/params.ts";

export const deleteIngestJob = {
  operationId: "deleteIngestJob",
  method: "DELETE",
  path: "/v1/namespace/{namespaceId}/ingest-jobs/{jobId}",
  summary: "Delete an ingest job and its documents (queued)",
  tag: "Ingest jobs",
  conflicts: "the job is already being deleted, or changed meanwhile",
  request: { path: jobPath, tenant: true, namespace: "any" },
  response: { status: 200, data: "IngestJob" },
} as const satisfies RouteContract;
