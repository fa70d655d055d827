import { DeleteCommand, GetCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { conflict, notFound } from "../domain/errors.ts";
import { newId } from "../platform/ids.ts";
import type { IngestConfig } from "../domain/ingest-config.ts";
import type { IngestJobRecord, IngestPayload } from "../domain/ingest-job.ts";
import { jobFromItem } from "./records.ts";
import { keys, listIndexAttributes } from "./dynamo/keys.ts";
import { listPage, type PageRequest, type Pagination } from "./dynamo/pager.ts";
import { idsOfNamespace } from "./dynamo/query.ts";
import { release, reserve, writeWithReservations } from "./reservations.ts";
import { applied, change, deletionFailed, deletionStarted, freshRunFields, sweepCounted, type Transitionable } from "./dynamo/transitions.ts";
import { QUEUED_STATUSES, RUNNING_STATUSES, type Status } from "../domain/statuses.ts";
import { nowIso } from "../platform/time.ts";

export function jobTarget(job: Pick<IngestJobRecord, "id" | "namespaceId" | "tenantId">): Transitionable {
  return { collection: "JOBS", key: keys.ingestJob(job.id), namespaceId: job.namespaceId, tenantId: job.tenantId };
}

export function jobItem(record: IngestJobRecord): Record<string, unknown> {
  return { ...keys.ingestJob(record.id), ...listIndexAttributes("JOBS", record), entityType: "IngestJob", ...record };
}

/** listIngestJobs: one page of a namespace's jobs (with a tenant, only that tenant's), in (createdAt, id) order. */
export async function listJobPage(request: Omit<PageRequest, "collection" | "parentJobId">): Promise<{ records: IngestJobRecord[]; pagination: Pagination }> {
  const page = await listPage({ ...request, collection: "JOBS", parentJobId: null });
  return { records: page.items.map(jobFromItem), pagination: page.pagination };
}

/** The ids of a namespace's jobs, page after page, as its list index has them (a moment behind the records). */
export function jobIdsOfNamespace(namespaceId: string): AsyncGenerator<string[]> {
  return idsOfNamespace("JOBS", namespaceId);
}

export async function getIngestJob(jobId: string): Promise<IngestJobRecord | null> {
  const result = await dynamo().send(new GetCommand({ TableName: config.tableName(), Key: keys.ingestJob(jobId), ConsistentRead: true }));
  return result.Item ? jobFromItem(result.Item) : null;
}

/**
 * The job a request addresses, or null. Another namespace's job, or (with a tenant header) another
 * tenant's, is reported exactly like a missing one.
 */
export async function findJobForRequest(namespaceId: string, tenantId: string | null, jobId: string): Promise<IngestJobRecord | null> {
  const job = await getIngestJob(jobId);
  if (!job || job.namespaceId !== namespaceId || (tenantId !== null && job.tenantId !== tenantId)) return null;
  return job;
}

export async function loadJobForRequest(namespaceId: string, tenantId: string | null, jobId: string): Promise<IngestJobRecord> {
  const job = await findJobForRequest(namespaceId, tenantId, jobId);
  if (!job) throw notFound(`Ingest job ${jobId} not found.`);
  return job;
}

export interface NewIngestJob {
  id: string;
  namespaceId: string;
  tenantId: string | null;
  name: string | null;
  externalId: string | null;
  /** The payload itself, or where it is stored when too large for the record. */
  payload: { inline: IngestPayload } | { objectKey: string };
  config: IngestConfig | null;
  documentCount: number;
  now: string;
}

/** Writes a QUEUED job (and its externalId reservation); 409 when the externalId is taken. */
export async function insertIngestJob(input: NewIngestJob): Promise<IngestJobRecord> {
  const id = input.id;
  const record: IngestJobRecord = {
    id,
    namespaceId: input.namespaceId,
    tenantId: input.tenantId,
    externalId: input.externalId,
    name: input.name,
    status: "QUEUED",
    error: null,
    ...("inline" in input.payload ? { payload: input.payload.inline, payloadObjectKey: null } : { payloadObjectKey: input.payload.objectKey }),
    config: input.config,
    createdAt: input.now,
    queuedAt: input.now,
    preProcessingAt: null,
    processingAt: null,
    completedAt: null,
    failedAt: null,
    updatedAt: input.now,
    runId: newId("ingestJob").slice(4),
    documentIds: Array.from({ length: input.documentCount }, () => newId("document")),
    documentsTotal: input.documentCount,
    documentsCreated: false,
    documentsCompleted: 0,
    documentsFailed: 0,
  };
  const table = config.tableName();
  await writeWithReservations([
    ...(record.externalId
      ? [
          reserve(keys.externalId(record.namespaceId, record.externalId), "ExternalId", { jobId: id }, () =>
            conflict(`An ingest job with externalId "${record.externalId}" already exists in this namespace.`),
          ),
        ]
      : []),
    { action: { Put: { TableName: table, Item: jobItem(record), ConditionExpression: "attribute_not_exists(PK)" } } },
    // A namespace deletion that started after the request was checked must not gain a new job.
    {
      action: {
        ConditionCheck: {
          TableName: table,
          Key: keys.namespace(record.namespaceId),
          ConditionExpression: "#status = :active",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":active": "ACTIVE" },
        },
      },
      ifRefused: () => conflict(`Namespace ${record.namespaceId} is being deleted.`),
    },
  ]);
  return record;
}

/** Removes a job record and its externalId reservation (its stored payload is the caller's). */
export async function removeIngestJobRecord(record: IngestJobRecord): Promise<void> {
  const table = config.tableName();
  await writeWithReservations([
    { action: { Delete: { TableName: table, Key: keys.ingestJob(record.id) } } },
    ...(record.externalId ? [release(keys.externalId(record.namespaceId, record.externalId), { field: "jobId", value: record.id })] : []),
  ]);
}

export async function deleteIngestJobItem(jobId: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: config.tableName(), Key: keys.ingestJob(jobId) }));
}

/**
 * The writes of an ingest job's lifecycle (domain/lifecycle.ts), as changes to the record as read.
 * Each is conditional on the status it expects and, where it acts for a run, on the job still being
 * on that run.
 */
export const jobChanges = {
  /** QUEUED → PRE_PROCESSING: the run's documents are about to be created. */
  startPreProcessing: (job: IngestJobRecord) =>
    change({
      to: "PRE_PROCESSING",
      from: QUEUED_STATUSES,
      runId: job.runId,
      set: { preProcessingAt: nowIso(), processingAt: null, completedAt: null, failedAt: null, error: null },
    }),

  /** PRE_PROCESSING → PROCESSING once the run's `documentsTotal` documents exist. */
  startProcessing: (job: IngestJobRecord, documentsTotal: number) =>
    change({
      to: "PROCESSING",
      from: ["PRE_PROCESSING"],
      runId: job.runId,
      set: { processingAt: nowIso(), documentsTotal, documentsCreated: true, documentsCompleted: 0, documentsFailed: 0 },
    }),

  /** PROCESSING → COMPLETED. */
  complete: (job: IngestJobRecord) =>
    change({ to: "COMPLETED", from: ["PROCESSING"], runId: job.runId, set: { completedAt: nowIso(), failedAt: null, error: null } }),

  /** The run fails with a reason, from any running status unless the caller narrows `from`. */
  fail: (job: IngestJobRecord, reason: string, from: readonly Status[] = RUNNING_STATUSES) =>
    change({ to: "FAILED", from, runId: job.runId, set: { failedAt: nowIso(), completedAt: null, error: reason } }),

  /**
   * → QUEUED_FOR_RESYNC on a new run. The run id changes in the same conditional write as the
   * status, so messages of the previous run become stale and a concurrent deletion (conditioned on
   * the old run id) loses.
   */
  queueForResync: (job: IngestJobRecord, runId: string) =>
    change({ to: "QUEUED_FOR_RESYNC", runId: job.runId, set: { runId, ...freshRunFields(), documentsCompleted: 0, documentsFailed: 0 } }),

  /**
   * → QUEUED_FOR_DELETE, keeping the status it had. A request names the run it read (`runId`), so
   * it and a concurrent re-ingestion cannot both win; a namespace's cascade takes any run.
   */
  queueForDelete: (job: IngestJobRecord, options: { onRun: boolean }) =>
    change({ to: "QUEUED_FOR_DELETE", ...(options.onRun ? { runId: job.runId } : {}), copy: { statusBeforeDelete: "status" } }),

  /** Undoes `queueForDelete` when the deletion's message could not be queued. */
  restoreAfterQueueFailure: (queued: IngestJobRecord) =>
    change({ restore: queued.statusBeforeDelete ?? "FAILED", runId: queued.runId }),

  /** The delete worker takes a queued deletion over. */
  startDeleting: deletionStarted<IngestJobRecord>,

  /** A deletion that keeps failing ends FAILED with the reason. */
  failDeletion: deletionFailed<IngestJobRecord>,

  /** Counts a sweep, conditional on the record being exactly as read (status, run and `updatedAt`). */
  recordSweep: sweepCounted<IngestJobRecord>,
};

/** The lifecycle writes applied: each returns the record as written, or null when someone else moved first. */
// Pure: a bundle that never writes a job (Search reads documents only) leaves the writes and the lifecycle out.
export const jobUpdates = /* @__PURE__ */ applied<IngestJobRecord, typeof jobChanges>(jobTarget, jobFromItem, jobChanges);
