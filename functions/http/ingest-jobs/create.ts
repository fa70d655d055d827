import { created, httpHandler } from "../../shared/http/handler.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { createIngestJobBody, jobToWire } from "../../shared/domain/ingest-job.ts";
import { createIngestJob } from "../../shared/workflows/ingestion/create-job.ts";

export const handler = httpHandler(
  { path: namespacePath, tenant: true, namespace: "active", body: createIngestJobBody },
  async ({ namespace, tenantId, body }) => {
    const { job, payload } = await createIngestJob(namespace, tenantId, body);
    return created(jobToWire(job, payload));
  },
);
