import type { RouteContract } from "../../shared/http/contract.ts";
import { jobPath } from "../../shared/domain/params.ts";

/** The body is ignored (the agentset SDK sends its options there). */
export const reingestJob = {
  operationId: "reingestJob",
  method: "POST",
  path: "/v1/namespace/{namespaceId}/ingest-jobs/{jobId}/re-ingest",
  summary: "Re-ingest a job",
  tag: "Ingest jobs",
  conflicts: "the job is not in a state that can be re-ingested (still running, being deleted)",
  request: { path: jobPath, tenant: true, namespace: "active" },
  response: { status: 200, data: "ReingestResult" },
} as const satisfies RouteContract;
