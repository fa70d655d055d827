import { listDocumentPage, loadDocumentForRequest } from "../../db/documents.ts";
import { findJobForRequest, listJobPage, loadJobForRequest } from "../../db/ingest-jobs.ts";
import type { DocumentRecord } from "../../domain/document.ts";
import type { documentListQuery, listQuery } from "../../domain/list-query.ts";
import type * as z from "../../platform/zod.ts";

/*
 * The reads of jobs and documents a request makes. Handlers reach the table only through
 * workflows; a record of another namespace, or of another tenant when the request names one, is
 * answered like a missing one.
 */

export { loadDocumentForRequest, loadJobForRequest };

/** listIngestJobs: one page of the namespace's jobs (with a tenant, only that tenant's). */
export function listJobs(namespaceId: string, tenantId: string | null, query: z.output<typeof listQuery>) {
  return listJobPage({
    namespaceId,
    tenantId,
    statuses: query.statuses,
    order: query.order,
    direction: query.cursorDirection,
    cursor: query.cursor ?? null,
    perPage: query.perPage,
  });
}

/** One page of the namespace's documents, or of one of its jobs' with `ingestJobId`. */
export async function listDocuments(namespaceId: string, tenantId: string | null, query: z.output<typeof documentListQuery>) {
  const jobId = query.ingestJobId ?? null;
  // The job index is keyed by job alone: another namespace's or tenant's job is answered like an
  // unknown one, before its partition is read, so no page size or cursor can tell of its documents.
  if (jobId !== null && !(await findJobForRequest(namespaceId, tenantId, jobId))) {
    return { records: [] as DocumentRecord[], pagination: { nextCursor: null, prevCursor: null, hasMore: false } };
  }
  const page = await listDocumentPage({
    namespaceId,
    tenantId,
    statuses: query.statuses,
    parentJobId: jobId,
    order: query.order,
    direction: query.cursorDirection,
    cursor: query.cursor ?? null,
    perPage: query.perPage,
  });
  return { records: page.records.filter((record) => record.namespaceId === namespaceId), pagination: page.pagination };
}
