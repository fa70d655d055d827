import type { RouteContract } from "../../shared/http/contract.ts";
import { createIngestJobBody } from "../../shared/domain/ingest-job.ts";
import { namespacePath } from "../../shared/domain/params.ts";

export const createIngestJob = {
  operationId: "createIngestJob",
  method: "POST",
  path: "/v1/namespace/{namespaceId}/ingest-jobs",
  summary: "Create an ingest job",
  tag: "Ingest jobs",
  conflicts: "the externalId is taken, or the deployment's vector index ceiling is reached",
  request: { path: namespacePath, tenant: true, namespace: "active", body: createIngestJobBody },
  response: { status: 201, data: "IngestJob" },
} as const satisfies RouteContract;
