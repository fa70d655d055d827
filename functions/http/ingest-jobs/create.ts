import { created, httpHandler } from "../../shared/http/handler.ts";
import * as routes from "./routes.ts";
import { jobToWire } from "../../shared/domain/wire/ingest-job.ts";
import { createIngestJob } from "../../shared/workflows/ingestion/create-job.ts";

export const handler = httpHandler(
  routes.createIngestJob,
  async ({ namespace, tenantId, body }) => {
    const { job, payload } = await createIngestJob(namespace, tenantId, body);
    return created(jobToWire(job, payload));
  },
);
