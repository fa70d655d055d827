import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./re-ingest.route.ts";
import { loadJobForRequest } from "../../shared/workflows/ingestion/lookups.ts";
import { requestReingest } from "../../shared/workflows/ingestion/reingest.ts";

/** reingestJob: 200 with only the id; the body is ignored (the agentset SDK sends its options there). */
export const handler = httpHandler(route.reingestJob, async ({ namespace, tenantId, path }) => {
  await requestReingest(await loadJobForRequest(namespace.id, tenantId, path.jobId));
  return ok({ id: path.jobId });
});
