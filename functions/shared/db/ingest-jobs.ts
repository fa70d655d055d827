import { DeleteCommand, GetCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "../aws-clients.ts";
import { config } from "../env.ts";
import { cancellationReasons, conflict, isConditionFailure, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import type { IngestConfig } from "../domain/ingest-config.ts";
import type { IngestJobRecord, IngestPayload } from "../domain/ingest-job.ts";
import { deleteObjects, getObjectText, putObject } from "../storage/objects.ts";
import { jobPayloadKey } from "../storage/object-keys.ts";
import { toRecord } from "./items.ts";
import { keys, listIndexAttributes } from "./keys.ts";
import { transactWrite } from "./transact.ts";
import type { Transitionable } from "./transitions.ts";

/** Payloads larger than this live in S3, so a job record never nears DynamoDB's 400 KB item limit. */
export const INLINE_PAYLOAD_BYTES = 64 * 1024;

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

export async function jobPayload(record: IngestJobRecord): Promise<IngestPayload> {
  if (record.payload) return record.payload;
  const stored = record.payloadObjectKey ? await getObjectText(record.payloadObjectKey) : null;
  if (stored === null) throw new Error(`payload of ingest job ${record.id} is missing from storage`);
  return JSON.parse(stored) as IngestPayload;
}

export interface NewIngestJob {
  namespaceId: string;
  tenantId: string | null;
  name: string | null;
  externalId: string | null;
  payload: IngestPayload;
  config: IngestConfig | null;
  documentCount: number;
  now: string;
}

/** Writes a QUEUED job (and its externalId reservation); 409 when the externalId is taken. */
export async function insertIngestJob(input: NewIngestJob): Promise<IngestJobRecord> {
  const id = newId("ingestJob");
  const serialised = JSON.stringify(input.payload);
  const inline = Buffer.byteLength(serialised) <= INLINE_PAYLOAD_BYTES;
  const record: IngestJobRecord = {
    id,
    namespaceId: input.namespaceId,
    tenantId: input.tenantId,
    externalId: input.externalId,
    name: input.name,
    status: "QUEUED",
    error: null,
    ...(inline ? { payload: input.payload, payloadObjectKey: null } : { payloadObjectKey: jobPayloadKey(input.namespaceId, id) }),
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
  if (!inline) await putObject(record.payloadObjectKey!, serialised, "application/json");
  const table = config.tableName();
  try {
    await transactWrite([
      ...(record.externalId
        ? [
            {
              Put: {
                TableName: table,
                Item: { ...keys.externalId(record.namespaceId, record.externalId), entityType: "ExternalId", jobId: id },
                ConditionExpression: "attribute_not_exists(PK)",
              },
            },
          ]
        : []),
      { Put: { TableName: table, Item: jobItem(record), ConditionExpression: "attribute_not_exists(PK)" } },
      // A namespace deletion that started after the request was checked must not gain a new job.
      {
        ConditionCheck: {
          TableName: table,
          Key: keys.namespace(record.namespaceId),
          ConditionExpression: "#status = :active",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":active": "ACTIVE" },
        },
      },
    ]);
  } catch (error) {
    if (!inline) await deleteObjects([record.payloadObjectKey!]);
    if (!isConditionFailure(error)) throw error;
    const reasons = cancellationReasons(error);
    if (record.externalId && reasons[0] === "ConditionalCheckFailed") {
      throw conflict(`An ingest job with externalId "${record.externalId}" already exists in this namespace.`);
    }
    if (reasons[reasons.length - 1] === "ConditionalCheckFailed") throw conflict(`Namespace ${record.namespaceId} is being deleted.`);
    throw error;
  }
  return record;
}

/** Removes a job record, its externalId reservation and its stored payload. */
export async function removeIngestJobRecord(record: IngestJobRecord): Promise<void> {
  const table = config.tableName();
  await transactWrite([
    { Delete: { TableName: table, Key: keys.ingestJob(record.id) } },
    ...(record.externalId
      ? [
          {
            Delete: {
              TableName: table,
              Key: keys.externalId(record.namespaceId, record.externalId),
              ConditionExpression: "attribute_not_exists(PK) OR jobId = :id",
              ExpressionAttributeValues: { ":id": record.id },
            },
          },
        ]
      : []),
  ]);
  if (record.payloadObjectKey) await deleteObjects([record.payloadObjectKey]);
}

export async function deleteIngestJobItem(jobId: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: config.tableName(), Key: keys.ingestJob(jobId) }));
}
