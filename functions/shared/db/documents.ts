import { DeleteCommand, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "./dynamo/client.ts";
import { config } from "../platform/env.ts";
import { notFound } from "../domain/errors.ts";
import { isConditionFailure } from "./dynamo/conditions.ts";
import type { DocumentRecord, ExtractionCheckpoint, ProcessingCheckpoint, VectorGeneration } from "../domain/document.ts";
import { DELETION_STATUSES, QUEUED_STATUSES, RUNNING_STATUSES } from "../domain/statuses.ts";
import { nowIso } from "../platform/time.ts";
import { documentFieldsFromItem, documentFromItem } from "./records.ts";
import { batchGetItems } from "./dynamo/batch-get.ts";
import { keys, listIndexAttributes } from "./dynamo/keys.ts";
import { listPage, type PageRequest, type Pagination } from "./dynamo/pager.ts";
import { idsOfNamespace } from "./dynamo/query.ts";
import { transactWrite } from "./dynamo/transact.ts";
import { applied, change, deletionFailed, deletionStarted, freshRunFields, sweepCounted, type Transitionable, type TransitionSpec, transitionUpdate } from "./dynamo/transitions.ts";
import { jobTarget } from "./ingest-jobs.ts";

export function documentTarget(document: Pick<DocumentRecord, "id" | "namespaceId" | "tenantId">): Transitionable {
  return { collection: "DOCS", key: keys.document(document.id), namespaceId: document.namespaceId, tenantId: document.tenantId };
}

/** One page of a namespace's documents, or of one job's with `parentJobId`, in (createdAt, id) order. */
export async function listDocumentPage(request: Omit<PageRequest, "collection">): Promise<{ records: DocumentRecord[]; pagination: Pagination }> {
  const page = await listPage({ ...request, collection: "DOCS" });
  return { records: page.items.map(documentFromItem), pagination: page.pagination };
}

/** The ids of a namespace's documents, page after page, as its list index has them (a moment behind the records). */
export function documentIdsOfNamespace(namespaceId: string): AsyncGenerator<string[]> {
  return idsOfNamespace("DOCS", namespaceId);
}

export async function getDocument(documentId: string): Promise<DocumentRecord | null> {
  const result = await dynamo().send(new GetCommand({ TableName: config.tableName(), Key: keys.document(documentId), ConsistentRead: true }));
  return result.Item ? documentFromItem(result.Item) : null;
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
      ExpressionAttributeValues: { ":pk": keys.uploadReferenceGroup(objectKey) },
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
  const records = items.map((item) => (fields ? documentFieldsFromItem(fields, item) : documentFromItem(item)));
  return new Map(records.map((record) => [record.id, record]));
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
 * delivery can never count a document twice. Returns the settled record, or null if the document
 * had already moved on.
 */
async function settleDocument(document: DocumentRecord, settlement: TransitionSpec & { to: "COMPLETED" | "FAILED" }): Promise<DocumentRecord | null> {
  const documentUpdate = transitionUpdate(documentTarget(document), settlement);
  const counter = settlement.to === "COMPLETED" ? "documentsCompleted" : "documentsFailed";
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
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
  // A transaction returns no item; the conditions held, so the record is the one read with this write applied.
  return { ...document, ...settlement.set, status: settlement.to, updatedAt: documentUpdate.ExpressionAttributeValues[":now"] as string };
}

/**
 * The writes of a document's lifecycle (domain/lifecycle.ts), as changes to the record as read.
 * Each is conditional on the status it expects and, where it acts for a run, on the document still
 * being on that run.
 */
export const documentChanges = {
  /** QUEUED → PRE_PROCESSING; an extraction checkpoint of an earlier try is dropped. */
  startPreProcessing: (document: DocumentRecord) =>
    change({ to: "PRE_PROCESSING", from: QUEUED_STATUSES, runId: document.runId, set: { preProcessingAt: nowIso(), extraction: null } }),

  /**
   * Moves the extraction checkpoint past the pages a step read, unless another delivery moved it
   * first: from `seenNextPage` when the run had a checkpoint, else only while it has none of its own.
   */
  saveExtraction: (document: DocumentRecord, extraction: ExtractionCheckpoint, seenNextPage: number | null) =>
    change({
      keep: "PRE_PROCESSING",
      runId: document.runId,
      set: { extraction },
      ...(seenNextPage !== null
        ? { condition: "extraction.nextPage = :seenPage", values: { ":seenPage": seenNextPage } }
        : { condition: "attribute_not_exists(extraction) OR attribute_type(extraction, :nullType) OR extraction.runId <> :runId", values: { ":nullType": "NULL" } }),
    }),

  /** PRE_PROCESSING → PROCESSING with the staged chunks' checkpoint. */
  startProcessing: (document: DocumentRecord, staged: { properties: DocumentRecord["properties"]; checkpoint: ProcessingCheckpoint }) =>
    change({
      to: "PROCESSING",
      from: ["PRE_PROCESSING"],
      runId: document.runId,
      set: { processingAt: nowIso(), properties: staged.properties, checkpoint: staged.checkpoint, extraction: null },
    }),

  /** Records embedded batches, unless another delivery already moved the checkpoint past `seenEmbedded`. */
  advanceCheckpoint: (document: DocumentRecord, checkpoint: ProcessingCheckpoint, seenEmbedded: number) =>
    change({
      keep: "PROCESSING",
      runId: document.runId,
      set: { checkpoint },
      condition: "checkpoint.embedded = :seen",
      values: { ":seen": seenEmbedded },
    }),

  /** PROCESSING → COMPLETED, the new vector generation made current and counted on the job. */
  complete: (
    document: DocumentRecord,
    result: Pick<DocumentRecord, "totalChunks" | "totalCharacters" | "totalPages" | "totalTokens"> & {
      generation: VectorGeneration;
      retiredGeneration: VectorGeneration | null;
    },
  ) =>
    change({
      to: "COMPLETED",
      from: ["PROCESSING"],
      runId: document.runId,
      set: { completedAt: nowIso(), failedAt: null, error: null, ...result, checkpoint: null },
    }),

  /** A working status → FAILED, counted on the job; whatever the document had indexed is retired. */
  fail: (document: DocumentRecord, reason: string) =>
    change({
      to: "FAILED",
      from: RUNNING_STATUSES,
      runId: document.runId,
      set: { failedAt: nowIso(), completedAt: null, error: reason, checkpoint: null, generation: null, retiredGeneration: document.generation },
    }),

  /** The retired generation's vectors are gone. */
  clearRetiredGeneration: (document: DocumentRecord) =>
    change({ keep: document.status, runId: document.runId, set: { retiredGeneration: null } }),

  /** Puts the document, as read, on the job's new run as QUEUED_FOR_RESYNC. */
  resetForRun: (document: DocumentRecord, runId: string) =>
    change({ to: "QUEUED_FOR_RESYNC", from: [document.status], runId: document.runId, set: { runId, ...freshRunFields(), checkpoint: null } }),

  /** → QUEUED_FOR_DELETE on the run read, keeping the status it had. */
  queueForDelete: (document: DocumentRecord) =>
    change({ to: "QUEUED_FOR_DELETE", runId: document.runId, copy: { statusBeforeDelete: "status" } }),

  /** Undoes `queueForDelete` when the deletion's message could not be queued. */
  restoreAfterQueueFailure: (queued: DocumentRecord) =>
    change({ restore: queued.statusBeforeDelete ?? "FAILED" }),

  /** The delete worker takes a queued deletion over. */
  startDeleting: deletionStarted<DocumentRecord>,

  /** Its job's deletion takes the document, whatever its status; the status it had is kept unless it was already being deleted. */
  startDeletingWithJob: (document: DocumentRecord) =>
    change({ to: "DELETING", ...(DELETION_STATUSES.includes(document.status) ? {} : { copy: { statusBeforeDelete: "status" } }) }),

  /** A deletion that keeps failing ends FAILED with the reason. */
  failDeletion: deletionFailed<DocumentRecord>,

  /** Counts a sweep, conditional on the record being exactly as read (status, run and `updatedAt`). */
  recordSweep: sweepCounted<DocumentRecord>,
};

function documentWrites() {
  const { complete, fail, ...unsettling } = documentChanges;
  return {
    ...applied<DocumentRecord, typeof unsettling>(documentTarget, documentFromItem, unsettling),
    complete: (document: DocumentRecord, result: Parameters<typeof complete>[1]) => settleDocument(document, complete(document, result)),
    fail: (document: DocumentRecord, reason: string) => settleDocument(document, fail(document, reason)),
  };
}

/**
 * The lifecycle writes applied: each returns the record as written, or null when another delivery
 * or a deletion moved first. Pure: a bundle that only reads documents (Search) leaves them out.
 */
export const documentUpdates = /* @__PURE__ */ documentWrites();

/** Deletes a document record whatever its state (the job cascade, after the document's data). */
export async function deleteDocumentItem(documentId: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: config.tableName(), Key: keys.document(documentId) }));
}

/** The document no longer uses its uploaded file. */
export async function removeUploadReference(objectKey: string, documentId: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: config.tableName(), Key: keys.uploadReference(objectKey, documentId) }));
}
