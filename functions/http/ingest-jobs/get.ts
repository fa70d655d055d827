import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./get.route.ts";
import { loadJobForRequest } from "../../shared/workflows/ingestion/lookups.ts";
import { readJobToWire } from "../../shared/workflows/records-to-wire.ts";

/** getIngestJob. */
export const handler = httpHandler(route.getIngestJob, async ({ namespace, tenantId, path }) => {
  const job = await loadJobForRequest(namespace.id, tenantId, path.jobId);
  return ok(await readJobToWire(job));
});
