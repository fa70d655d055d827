import { httpHandler, ok } from "../../shared/http/handler.ts";
import { loadJobForRequest } from "../../shared/workflows/ingestion/lookups.ts";
import { jobPath } from "../../shared/domain/params.ts";
import { jobsToWire } from "../../shared/workflows/records-to-wire.ts";

/** getIngestJob. */
export const handler = httpHandler({ path: jobPath, tenant: true, namespace: "any" }, async ({ namespace, tenantId, path }) => {
  const job = await loadJobForRequest(namespace.id, tenantId, path.jobId);
  const [wire] = await jobsToWire([job]);
  return ok(wire);
});
