import { nowIso } from "../../platform/time.ts";
import { faultPoint } from "../../platform/fault-points.ts";
import { getDocument, getDocuments, insertDocumentIfAbsent } from "../../db/documents.ts";
import { getIngestJob, jobUpdates } from "../../db/ingest-jobs.ts";
import { jobPayload } from "./stored-payloads.ts";
import { getNamespace } from "../../db/namespaces.ts";
import type { DocumentRecord } from "../../domain/document.ts";
import { type IngestConfig, mergeConfigs } from "../../domain/ingest-config.ts";
import { type IngestJobRecord, type PayloadItem, payloadItems } from "../../domain/ingest-job.ts";
import { DELETION_STATUSES, FINAL_STATUSES, QUEUED_STATUSES } from "../../domain/statuses.ts";
import { enqueueAll } from "../../queue/send.ts";
import { mapLimited } from "../../platform/concurrency.ts";
import { resetDocumentsForRun } from "./reingest.ts";
import { deleteObjects, putObject } from "../../storage/objects.ts";
import { documentSourceKey, fileNameOfKey } from "../../storage/object-keys.ts";
import { finishJobIfDone } from "./settlement.ts";

/** TEXT sources larger than this are kept in S3 next to the document rather than in its record. */
const INLINE_SOURCE_BYTES = 64 * 1024;

/** Large TEXT sources written to S3 at once while a run's documents are prepared. */
const SOURCE_WRITES_IN_FLIGHT = 8;

/**
 * Runs the job step of an ingestion run: QUEUED → PRE_PROCESSING (documents created) → PROCESSING
 * (document work queued). Each step is conditional on the status and the run, so a duplicate or
 * late message either resumes where the run stands or does nothing. A delivery that loses a
 * transition to another one still carries on from where the run now stands: the other may be a
 * duplicate delivery of this very message, and if it died after this one was acknowledged, no
 * message would be left to finish the step.
 */
export async function startJobRun(jobId: string, runId: string): Promise<void> {
  let job = await getIngestJob(jobId);
  if (!job || job.runId !== runId || [...DELETION_STATUSES, ...FINAL_STATUSES].includes(job.status)) return;
  const namespace = await getNamespace(job.namespaceId);
  if (!namespace || namespace.status !== "ACTIVE") return;

  if (QUEUED_STATUSES.includes(job.status)) {
    job = (await jobUpdates.startPreProcessing(job)) ?? (await getIngestJob(jobId));
    if (!job || job.runId !== runId) return;
  }
  await faultPoint("job:pre-processing");

  if (job.status === "PRE_PROCESSING") {
    const total = await prepareDocuments(job);
    await faultPoint("job:documents-created");
    job = (await jobUpdates.startProcessing(job, total)) ?? (await getIngestJob(jobId));
    if (!job || job.runId !== runId) return;
  }
  if (job.status !== "PROCESSING") return;

  // Also reached by a redelivered message after a crash between the transition and the sends;
  // a document that already started ignores the duplicate.
  const documents = await getDocuments(job.documentIds);
  const waiting = [...documents.values()].filter((document) => document.runId === runId && QUEUED_STATUSES.includes(document.status));
  await enqueueAll(
    "ingest",
    waiting.map((document) => ({ kind: "document" as const, documentId: document.id, runId })),
  );
  await finishJobIfDone(jobId, runId);
}

/**
 * Creates the run's documents on the first run (ids were fixed when the job was created, so a
 * retry recreates the same ones). A re-ingestion reuses the documents that still exist.
 */
async function prepareDocuments(job: IngestJobRecord): Promise<number> {
  if (job.documentsCreated) return resetDocumentsForRun(job);
  const items = payloadItems(await jobPayload(job));
  const now = nowIso();
  const documents = await mapLimited(items, SOURCE_WRITES_IN_FLIGHT, (item, index) => {
    const documentId = job.documentIds[index];
    if (!documentId) throw new Error(`ingest job ${job.id} has no document id for item ${index}`);
    return newDocument(job, item, documentId, now);
  });
  // One insert at a time: each condition-checks the job item in its transaction, and DynamoDB
  // cancels a transaction on an item another transaction holds (TransactionConflict), so parallel
  // inserts of one job would mostly cancel each other rather than go faster. Conflicts with other
  // writers of the job item are retried by `transactWrite`.
  for (const document of documents) {
    const inserted = await insertDocumentIfAbsent(document);
    // The job stopped preparing (a deletion began) before this document existed: the text
    // stored for it has no owner. A retry whose document already exists keeps it.
    if (!inserted && document.sourceObjectKey && !(await getDocument(document.id))) await deleteObjects([document.sourceObjectKey]);
  }
  return items.length;
}

async function newDocument(job: IngestJobRecord, item: PayloadItem, documentId: string, now: string): Promise<DocumentRecord> {
  let source: DocumentRecord["source"];
  let sourceObjectKey: string | null = null;
  if (item.type === "TEXT") {
    if (Buffer.byteLength(item.text) > INLINE_SOURCE_BYTES) {
      sourceObjectKey = documentSourceKey(job.namespaceId, documentId);
      await putObject(sourceObjectKey, item.text, "text/plain; charset=utf-8");
      source = { type: "TEXT" };
    } else {
      source = { type: "TEXT", text: item.text };
    }
  } else if (item.type === "MANAGED_FILE") {
    source = { type: "MANAGED_FILE", key: item.key };
  } else {
    source = { type: "FILE", fileUrl: item.fileUrl };
  }
  return {
    id: documentId,
    ingestJobId: job.id,
    namespaceId: job.namespaceId,
    tenantId: job.tenantId,
    name: item.fileName ?? defaultName(item),
    status: "QUEUED",
    error: null,
    source,
    sourceObjectKey,
    properties: null,
    config: documentConfig(job.config, "config" in item && item.config ? item.config : null),
    totalChunks: null,
    totalTokens: null,
    totalCharacters: null,
    totalPages: null,
    createdAt: now,
    queuedAt: now,
    preProcessingAt: null,
    processingAt: null,
    completedAt: null,
    failedAt: null,
    updatedAt: now,
    runId: job.runId,
    checkpoint: null,
    generation: null,
    retiredGeneration: null,
  };
}

/**
 * The config the document is ingested with, as its record reports it: the job's, with a BATCH
 * item's own fields over it (agentset leaves it null for every document but a BATCH item with a
 * config, so a TEXT job's settings were invisible on its document). Null when neither has one.
 */
function documentConfig(jobConfig: IngestConfig | null, itemConfig: IngestConfig | null): IngestConfig | null {
  return jobConfig || itemConfig ? mergeConfigs(jobConfig, itemConfig) : null;
}

function defaultName(item: PayloadItem): string | null {
  if (item.type === "MANAGED_FILE") return fileNameOfKey(item.key);
  if (item.type === "FILE") {
    const last = new URL(item.fileUrl).pathname.split("/").filter(Boolean).pop();
    return last ? decodedOrRaw(last) : null;
  }
  return null;
}

/**
 * A URL's path segment as a name. A segment that is not valid percent-encoded UTF-8 (`%ff`) keeps
 * its raw form: the name is cosmetic, and throwing here would fail every item of the batch.
 */
function decodedOrRaw(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

