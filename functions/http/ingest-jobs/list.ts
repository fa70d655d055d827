import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./list.route.ts";
import { listJobs } from "../../shared/workflows/ingestion/lookups.ts";
import { jobsToWire } from "../../shared/workflows/records-to-wire.ts";

/** listIngestJobs: cursor-paginated, newest first by default; with x-tenant-id only that tenant's jobs. */
export const handler = httpHandler(
  route.listIngestJobs,
  async ({ namespace, tenantId, query }) => {
    const page = await listJobs(namespace.id, tenantId, query);
    return ok(await jobsToWire(page.records), { pagination: page.pagination });
  },
);
