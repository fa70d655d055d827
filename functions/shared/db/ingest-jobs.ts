import { DeleteCommand, GetCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./client.ts";
import { config } from "../platform/env.ts";
import { conflict, notFound } from "../domain/errors.ts";
import { newId } from "../platform/ids.ts";
import type { IngestConfig } from "../domain/ingest-config.ts";
import type { IngestJobRecord, IngestPayload } from "../domain/ingest-job.ts";
import { toRecord } from "./items.ts";
import { keys, listIndexAttributes } from "./keys.ts";
import { release, reserve, writeWithReservations } from "./reservations.ts";
import type { Transitionable } from "./transitions.ts";

export function jobTarget(job: Pick<IngestJobRecord, "id" | "namespaceId" | "tenantId">): Transitionable {
  return { collection: "JOBS", key: keys.ingestJob(job.id), namespaceId: job.namespaceId, tenantId: job.tenantId };
}

export function jobItem(record: IngestJobRecord): Record<string, unknown> {
  return { ...keys.ingestJob(record.id), ...listIndexAttributes("JOBS", record), entityType: "IngestJob", ...record };
}

export async function getIngestJob(jobId: string): Promise<IngestJobRecord | null> {
  const result = await dynamo().send(new GetCommand({ TableName: config.tableName(), Key: keys.ingestJob(jobId), ConsistentRead: true }));
  return result.Item ? toRecord<IngestJobRecord>(result.Item) : null;
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
