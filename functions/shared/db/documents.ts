import { BatchGetCommand, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "../aws-clients.ts";
import { config } from "../env.ts";
import { isConditionFailure, notFound } from "../errors.ts";
import type { DocumentRecord, DocumentSource } from "../domain/document.ts";
import { getObjectText } from "../storage/objects.ts";
import { toRecord } from "./items.ts";
import { keys, listIndexAttributes } from "./keys.ts";
import { transactWrite } from "./transact.ts";
import type { Transitionable } from "./transitions.ts";

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

export async function documentSource(record: DocumentRecord): Promise<DocumentSource> {
  if (record.source.type !== "TEXT" || "text" in record.source) return record.source as DocumentSource;
  const text = record.sourceObjectKey ? await getObjectText(record.sourceObjectKey) : null;
  if (text === null) throw new Error(`source text of document ${record.id} is missing from storage`);
  return { type: "TEXT", text };
}

/** What search needs to know of a document: whether a chunk of a given run is current. */
export const SEARCH_FIELDS = ["id", "namespaceId", "tenantId", "status", "generation"] as const;

/**
 * Many documents by id, consistently read; missing ids are simply absent from the result. With
 * `fields`, only those attributes are read (a TEXT document can carry 64 KB of source text).
 */
export async function getDocuments(documentIds: string[], fields?: readonly string[]): Promise<Map<string, DocumentRecord>> {
  const found = new Map<string, DocumentRecord>();
  const unique = [...new Set(documentIds)];
  for (let start = 0; start < unique.length; start += 100) {
    const batchKeys: Record<string, unknown>[] = unique.slice(start, start + 100).map((id) => ({ ...keys.document(id) }));
    const projection = fields
      ? {
          ProjectionExpression: fields.map((_, index) => `#f${index}`).join(", "),
          ExpressionAttributeNames: Object.fromEntries(fields.map((field, index) => [`#f${index}`, field])),
        }
      : {};
    let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead?: boolean }> | undefined = {
      [config.tableName()]: { Keys: batchKeys, ConsistentRead: true, ...projection },
    };
    while (request && Object.keys(request).length > 0) {
      const result = await dynamo().send(new BatchGetCommand({ RequestItems: request }));
      for (const item of result.Responses?.[config.tableName()] ?? []) {
        const record = toRecord<DocumentRecord>(item);
        found.set(record.id, record);
      }
      request = result.UnprocessedKeys as typeof request;
    }
  }
  return found;
}
