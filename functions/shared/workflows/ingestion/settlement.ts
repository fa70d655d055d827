import { logger } from "../../platform/logger.ts";
import { documentUpdates, getDocument, getDocuments } from "../../db/documents.ts";
import { getIngestJob, jobUpdates } from "../../db/ingest-jobs.ts";
import { getNamespace } from "../../db/namespaces.ts";
import { type DocumentRecord, type VectorGeneration } from "../../domain/document.ts";
import { DELETION_STATUSES, FINAL_STATUSES, QUEUED_STATUSES } from "../../domain/statuses.ts";
import { deleteObjects, deletePrefix } from "../../storage/objects.ts";
import { chunksKey, stagingRunPrefix } from "../../storage/object-keys.ts";
import { vectorStore } from "../../vector-store/index.ts";
import { vectorKeysOf } from "../../domain/chunks.ts";
import { partitionOf } from "../../domain/partitions.ts";

/** Settles the job once every document of the run is COMPLETED or FAILED. */
export async function finishJobIfDone(jobId: string, runId: string): Promise<void> {
  const job = await getIngestJob(jobId);
  if (!job || job.runId !== runId || job.status !== "PROCESSING") return;
  const total = job.documentsTotal;
  if (job.documentsCompleted + job.documentsFailed < total) return;
  if (job.documentsFailed > 0) await jobUpdates.fail(job, `${job.documentsFailed} of ${total} document(s) failed to process`, ["PROCESSING"]);
  else await jobUpdates.complete(job);
}

/** Marks a job FAILED when its own step cannot complete (the last delivery of its message failed). */
export async function failJobRun(jobId: string, runId: string, reason: string): Promise<void> {
  const job = await getIngestJob(jobId);
  if (!job || job.runId !== runId) return;
  await jobUpdates.fail(job, reason);
  logger.warn("ingest job failed", { jobId, reason });
  // Documents the step created but never queued would wait for their messages forever.
  const documents = await getDocuments(job.documentIds);
  for (const document of documents.values()) {
    if (document.runId === runId && QUEUED_STATUSES.includes(document.status)) await failDocument(document.id, runId, reason);
  }
}

/**
 * The clean-up after a document settles, safe to repeat: remove the retired vector generation and
 * the staging file, then settle the job if this was its last document.
 */
export async function afterSettled(document: DocumentRecord): Promise<void> {
  const namespace = await getNamespace(document.namespaceId);
  if (document.retiredGeneration && namespace) {
    const retired = document.retiredGeneration;
    await (await vectorStore()).deleteKeys(partitionOf(document, namespace), vectorKeysOf(document.id, retired.runId, retired.totalChunks));
    await documentUpdates.clearRetiredGeneration(document);
  }
  await deletePrefix(stagingRunPrefix(document.namespaceId, document.id, document.runId));
  await finishJobIfDone(document.ingestJobId, document.runId);
}

/**
 * Another delivery settled this run first and may have died before its clean-up (whose message is
 * then gone too, when it was a duplicate of this one's); the clean-up is idempotent, so this one
 * does it again.
 */
export async function finishCleanUpOfSettled(documentId: string, runId: string): Promise<void> {
  const current = await getDocument(documentId);
  if (current && current.runId === runId && FINAL_STATUSES.includes(current.status)) await afterSettled(current);
}

/**
 * Fails the document of this run with a reason. Whatever it had indexed is retired with it, so a
 * FAILED document is never searchable, then the job is settled if this was its last document.
 */
export async function failDocument(documentId: string, runId: string, reason: string): Promise<void> {
  const document = await getDocument(documentId);
  if (!document || document.runId !== runId || DELETION_STATUSES.includes(document.status)) return;
  // A last try that died after the run settled still owes the run its clean-up.
  if (FINAL_STATUSES.includes(document.status)) return afterSettled(document);
  const partial: VectorGeneration | null = document.checkpoint?.runId === runId ? { runId, totalChunks: document.checkpoint.totalChunks } : null;
  const settled = await documentUpdates.fail(document, reason);
  logger.warn("document failed", { documentId, reason });
  if (!settled) return finishCleanUpOfSettled(documentId, runId);
  const namespace = await getNamespace(document.namespaceId);
  if (namespace && partial) await (await vectorStore()).deleteKeys(partitionOf(document, namespace), vectorKeysOf(documentId, runId, partial.totalChunks));
  // The run may have published its files before it failed (a crash after publishing, on every try).
  await deleteObjects([chunksKey(document.namespaceId, documentId)]);
  await afterSettled(settled);
}
