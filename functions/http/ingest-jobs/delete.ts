import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./delete.route.ts";
import { loadJobForRequest } from "../../shared/workflows/ingestion/lookups.ts";
import { readJobToWire } from "../../shared/workflows/records-to-wire.ts";
import { requestJobDeletion } from "../../shared/workflows/deletion/requests.ts";

/** deleteIngestJob: 200 with the job now QUEUED_FOR_DELETE; the worker removes it and all its documents. */
export const handler = httpHandler(route.deleteIngestJob, async ({ namespace, tenantId, path }) => {
  const job = await requestJobDeletion(await loadJobForRequest(namespace.id, tenantId, path.jobId));
  return ok(await readJobToWire(job));
});
