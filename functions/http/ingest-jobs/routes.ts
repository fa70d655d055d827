import type { RouteContract } from "../../shared/http/contract.ts";
import { createIngestJobBody } from "../../shared/domain/ingest-job.ts";
import { listQuery } from "../../shared/domain/list-query.ts";
import { jobPath, namespacePath } from "../../shared/domain/params.ts";

const JOBS = "/v1/namespace/{namespaceId}/ingest-jobs";

export const createIngestJob = {
  operationId: "createIngestJob",
  method: "POST",
  path: JOBS,
  summary: "Create an ingest job",
  tag: "Ingest jobs",
  conflicts: "the externalId is taken, or the deployment's vector index ceiling is reached",
  request: { path: namespacePath, tenant: true, namespace: "active", body: createIngestJobBody },
  response: { status: 201, data: "IngestJob" },
} as const satisfies RouteContract;

export const listIngestJobs = {
  operationId: "listIngestJobs",
  method: "GET",
  path: JOBS,
  summary: "List ingest jobs",
  tag: "Ingest jobs",
  request: { path: namespacePath, tenant: true, namespace: "any", query: listQuery },
  response: { status: 200, data: "IngestJob", list: true, paginated: true },
} as const satisfies RouteContract;

export const getIngestJob = {
  operationId: "getIngestJob",
  method: "GET",
  path: `${JOBS}/{jobId}`,
  summary: "Get an ingest job",
  tag: "Ingest jobs",
  request: { path: jobPath, tenant: true, namespace: "any" },
  response: { status: 200, data: "IngestJob" },
} as const satisfies RouteContract;

export const deleteIngestJob = {
  operationId: "deleteIngestJob",
  method: "DELETE",
  path: `${JOBS}/{jobId}`,
  summary: "Delete an ingest job and its documents (queued)",
  tag: "Ingest jobs",
  conflicts: "the job is already being deleted, or changed meanwhile",
  request: { path: jobPath, tenant: true, namespace: "any" },
  response: { status: 200, data: "IngestJob" },
} as const satisfies RouteContract;

/** The body is ignored (the agentset SDK sends its options there). */
export const reingestJob = {
  operationId: "reingestJob",
  method: "POST",
  path: `${JOBS}/{jobId}/re-ingest`,
  summary: "Re-ingest a job",
  tag: "Ingest jobs",
  conflicts: "the job is not in a state that can be re-ingested (still running, being deleted)",
  request: { path: jobPath, tenant: true, namespace: "active" },
  response: { status: 200, data: "ReingestResult" },
} as const satisfies RouteContract;
