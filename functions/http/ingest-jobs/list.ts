import { httpHandler, ok } from "../../shared/http/handler.ts";
import { listPage } from "../../shared/db/pager.ts";
import { listQuery } from "../../shared/domain/list-query.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { jobsToWire } from "../../shared/workflows/records-to-wire.ts";

/** listIngestJobs: cursor-paginated, newest first by default; with x-tenant-id only that tenant's jobs. */
export const handler = httpHandler(
  { path: namespacePath, tenant: true, namespace: "any", query: listQuery },
  async ({ namespace, tenantId, query }) => {
    const page = await listPage({
      collection: "JOBS",
      namespaceId: namespace.id,
      tenantId,
      statuses: query.statuses,
      parentJobId: null,
      order: query.order,
      direction: query.cursorDirection,
      cursor: query.cursor ?? null,
      perPage: query.perPage,
    });
    return ok(await jobsToWire(page.records), { pagination: page.pagination });
  },
);
