import { DeleteCommand, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./client.ts";
import { config } from "../platform/env.ts";
import { notFound } from "../domain/errors.ts";
import { isConditionFailure } from "./conditions.ts";
import type { DocumentRecord } from "../domain/document.ts";
import { toRecord } from "./items.ts";
import { batchGetItems } from "./batch-get.ts";
import { keys, listIndexAttributes } from "./keys.ts";
import { transactWrite } from "./transact.ts";
import { type Transitionable, transitionUpdate } from "./transitions.ts";
import { jobTarget } from "./ingest-jobs.ts";

export function documentTarget(document: Pick<DocumentRecord, "id" | "namespaceId" | "tenantId">): Transitionable {
  return { collection: "DOCS", key: keys.document(document.id), namespaceId: document.namespaceId, tenantId: document.tenantId };
}

export async function getDocument(documentId: string): Promise<DocumentRecord | null> {
  const result = await dynamo().send(new GetCommand({ TableName: config.tableName(), Key: keys.document(documentId), ConsistentRead: true }));
  return result.Item ? toRecord<DocumentRecord>(result.Item) : null;
}

/** Another namespace's document, or (with a tenant header) another tenant's, is reported as missing. */
export async function loadDocumentForRequest(namespaceId: string, tenantId: string | null, documentId: string): Promise<DocumentRecord> {
  const document = await getDocument(documentId);
  if (!document || document.namespaceId !== namespaceId || (tenantId !== null && document.tenantId !== tenantId)) {
    throw notFound(`Document ${documentId} not found.`);
  }
  return document;
}

/**
 * Creates the document unless it already exists (a retried step must not reset its progress), and
 * only while its job is still preparing this run: once a deletion has started, a late step can
 * never bring a deleted document back.
 */
export async function insertDocumentIfAbsent(record: DocumentRecord): Promise<boolean> {
  const table = config.tableName();
  try {
    await transactWrite([
      {
        Put: {
          TableName: table,
          Item: { ...keys.document(record.id), ...listIndexAttributes("DOCS", record), entityType: "Document", ...record },
          ConditionExpression: "attribute_not_exists(PK)",
        },
      },
      {
        ConditionCheck: {
          TableName: table,
          Key: keys.ingestJob(record.ingestJobId),
          ConditionExpression: "#status = :preparing AND runId = :runId",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":preparing": "PRE_PROCESSING", ":runId": record.runId },
        },
      },
      ...(record.source.type === "MANAGED_FILE"
        ? [
            {
              Put: {
                TableName: table,
                Item: { ...keys.uploadReference(record.source.key, record.id), entityType: "UploadReference", namespaceId: record.namespaceId },
              },
            },
          ]
        : []),
    ]);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Whether any document still refers to an uploaded file. */
export async function uploadIsReferenced(objectKey: string): Promise<boolean> {
  const result = await dynamo().send(
    new QueryCommand({
      TableName: config.tableName(),
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": keys.uploadReferencePartition(objectKey) },
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).length > 0;
}

/** What search needs to know of a document: whether a chunk of a given run is current. */
export const SEARCH_FIELDS = ["id", "namespaceId", "tenantId", "status", "generation"] as const;

/**
 * Many documents by id, consistently read; missing ids are simply absent from the result. With
 * `fields`, only those attributes are read (a TEXT document can carry 64 KB of source text).
 */
export async function getDocuments(documentIds: string[], fields?: readonly string[]): Promise<Map<string, DocumentRecord>> {
  const items = await batchGetItems([...new Set(documentIds)].map((id) => keys.document(id)), { consistent: true, fields });
  return new Map(items.map((item) => toRecord<DocumentRecord>(item)).map((record) => [record.id, record]));
}

/**
 * Deletes the record and, when it belonged to its job's current run, takes it out of that run's
 * counts in the same transaction, so the job settles without it and never waits for it.
 */
export async function removeDocumentRecord(document: DocumentRecord): Promise<void> {
  const table = config.tableName();
  const remove = {
    Delete: {
      TableName: table,
      Key: keys.document(document.id),
      ConditionExpression: "attribute_not_exists(PK) OR #status = :deleting",
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: { ":deleting": "DELETING" },
    },
  };
  const settledAs = document.statusBeforeDelete;
  const counts: Record<string, number> = { documentsTotal: -1 };
  if (settledAs === "COMPLETED") counts.documentsCompleted = -1;
  if (settledAs === "FAILED") counts.documentsFailed = -1;
  const names: Record<string, string> = {};
  const adds = Object.entries(counts).map(([field, amount], index) => {
    names[`#n${index}`] = field;
    return `#n${index} :v${index}`;
  });
  const values = Object.fromEntries(Object.values(counts).map((amount, index) => [`:v${index}`, amount]));
  try {
    await transactWrite([
      remove,
      {
        Update: {
          TableName: table,
          Key: keys.ingestJob(document.ingestJobId),
          UpdateExpression: `ADD ${adds.join(", ")}`,
          ConditionExpression: "attribute_exists(PK) AND runId = :runId",
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ":runId": document.runId },
        },
      },
    ]);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The job is gone or has moved on to another run: the document is no longer counted anywhere.
    await dynamo().send(new DeleteCommand(remove.Delete));
  }
}

/**
 * Settles one document of a run and counts it on its job in the same transaction, so a duplicate
 * delivery can never count a document twice. Returns false if the document had already moved on.
 */
export async function settleDocument(
  document: DocumentRecord,
  outcome: { status: "COMPLETED" | "FAILED"; set: Record<string, unknown> },
): Promise<boolean> {
  const documentUpdate = transitionUpdate(documentTarget(document), {
    to: outcome.status,
    from: ["QUEUED", "QUEUED_FOR_RESYNC", "PRE_PROCESSING", "PROCESSING"],
    runId: document.runId,
    set: outcome.set,
  });
  const counter = outcome.status === "COMPLETED" ? "documentsCompleted" : "documentsFailed";
  try {
    await transactWrite([
      { Update: documentUpdate },
      {
        Update: {
          TableName: documentUpdate.TableName,
          Key: jobTarget({ id: document.ingestJobId, namespaceId: document.namespaceId, tenantId: document.tenantId }).key,
          UpdateExpression: "ADD #counter :one",
          ConditionExpression: "attribute_exists(PK) AND runId = :runId",
          ExpressionAttributeNames: { "#counter": counter },
          ExpressionAttributeValues: { ":one": 1, ":runId": document.runId },
        },
      },
    ]);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Deletes a document record whatever its state (the job cascade, after the document's data). */
export async function deleteDocumentItem(documentId: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: config.tableName(), Key: keys.document(documentId) }));
}

/** The document no longer uses its uploaded file. */
export async function removeUploadReference(objectKey: string, documentId: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: config.tableName(), Key: keys.uploadReference(objectKey, documentId) }));
}
