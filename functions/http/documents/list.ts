import { httpHandler, ok } from "../../shared/http/handler.ts";
import { findJobForRequest } from "../../shared/db/ingest-jobs.ts";
import { listPage } from "../../shared/db/pager.ts";
import { documentListQuery } from "../../shared/domain/list-query.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { documentsToWire } from "../../shared/workflows/records-to-wire.ts";

/** Documents of a namespace, or of one ingest job with `ingestJobId`; paginated like listIngestJobs. */
export const handler = httpHandler(
  { path: namespacePath, tenant: true, namespace: "any", query: documentListQuery },
  async ({ namespace, tenantId, query }) => {
    const jobId = query.ingestJobId ?? null;
    // The job index is keyed by job alone: another namespace's or tenant's job is answered like an
    // unknown one, before its partition is read, so no page size or cursor can tell of its documents.
    if (jobId !== null && !(await findJobForRequest(namespace.id, tenantId, jobId))) {
      return ok([], { pagination: { nextCursor: null, prevCursor: null, hasMore: false } });
    }
    const page = await listPage({
      collection: "DOCS",
      namespaceId: namespace.id,
      tenantId,
      statuses: query.statuses,
      parentJobId: jobId,
      order: query.order,
      direction: query.cursorDirection,
      cursor: query.cursor ?? null,
      perPage: query.perPage,
    });
    const records = page.records.filter((record) => record.namespaceId === namespace.id);
    return ok(await documentsToWire(records), { pagination: page.pagination });
  },
);
