import { httpHandler, ok } from "../../shared/http/handler.ts";
import { documentListQuery } from "../../shared/domain/list-query.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { listDocuments } from "../../shared/workflows/ingestion/lookups.ts";
import { documentsToWire } from "../../shared/workflows/records-to-wire.ts";

/** Documents of a namespace, or of one ingest job with `ingestJobId`; paginated like listIngestJobs. */
export const handler = httpHandler(
  { path: namespacePath, tenant: true, namespace: "any", query: documentListQuery },
  async ({ namespace, tenantId, query }) => {
    const page = await listDocuments(namespace.id, tenantId, query);
    return ok(await documentsToWire(page.records), { pagination: page.pagination });
  },
);
