import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./list.route.ts";
import { listDocuments } from "../../shared/workflows/ingestion/lookups.ts";
import { documentsToWire } from "../../shared/workflows/records-to-wire.ts";

/** Documents of a namespace, or of one ingest job with `ingestJobId`; paginated like listIngestJobs. */
export const handler = httpHandler(
  route.listDocuments,
  async ({ namespace, tenantId, query }) => {
    const page = await listDocuments(namespace.id, tenantId, query);
    return ok(await documentsToWire(page.records), { pagination: page.pagination });
  },
);
