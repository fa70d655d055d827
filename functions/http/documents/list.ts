import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as routes from "./routes.ts";
import { listDocuments } from "../../shared/workflows/ingestion/lookups.ts";
import { documentsToWire } from "../../shared/workflows/records-to-wire.ts";

/** Documents of a namespace, or of one ingest job with `ingestJobId`; paginated like listIngestJobs. */
export const handler = httpHandler(
  routes.listDocuments,
  async ({ namespace, tenantId, query }) => {
    const page = await listDocuments(namespace.id, tenantId, query);
    return ok(await documentsToWire(page.records), { pagination: page.pagination });
  },
);
