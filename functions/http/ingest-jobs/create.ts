import { created, httpHandler } from "../../shared/http/handler.ts";
import * as route from "./create.route.ts";
import { jobToWire } from "../../shared/domain/wire/ingest-job.ts";
import { createIngestJob } from "../../shared/workflows/ingestion/create-job.ts";

export const handler = httpHandler(
  route.createIngestJob,
  async ({ namespace, tenantId, body }) => {
    const { job, payload } = await createIngestJob(namespace, tenantId, body);
    return created(jobToWire(job, payload));
  },
);
