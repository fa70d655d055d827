import { conflict } from "../../domain/errors.ts";
import { faultPoint } from "../../platform/fault-points.ts";
import { documentUpdates } from "../../db/documents.ts";
import { getIngestJob, jobUpdates } from "../../db/ingest-jobs.ts";
import { markNamespaceDeleting, restoreNamespaceActive } from "../../db/namespaces.ts";
import { type DocumentRecord } from "../../domain/document.ts";
import { type IngestJobRecord } from "../../domain/ingest-job.ts";
import { type NamespaceRecord } from "../../domain/namespace.ts";
import { DELETION_STATUSES } from "../../domain/statuses.ts";
import { enqueue } from "../../queue/send.ts";

/*
 * The request side of deletions (deleteIngestJob, deleteDocument, the namespace delete): the record flips to its deletion
 * status and the cascade is queued; the delete worker does the rest (cascades.ts).
 */

/** deleteIngestJob. The job's run id is part of the condition, so a concurrent re-ingestion and this deletion cannot both win. */
export async function requestJobDeletion(job: IngestJobRecord): Promise<IngestJobRecord> {
  if (DELETION_STATUSES.includes(job.status)) throw conflict(`Ingest job ${job.id} is already being deleted.`);
  await faultPoint("request:job-read");
  const queued = await jobUpdates.queueForDelete(job, { onRun: true });
  if (!queued) throw conflict(`Ingest job ${job.id} changed while it was being deleted (re-ingested or deleted meanwhile); retry.`);
  await queueOrUndo({ kind: "job", jobId: job.id }, () => jobUpdates.restoreAfterQueueFailure(queued));
  return queued;
}

/** deleteDocument. */
export async function requestDocumentDeletion(document: DocumentRecord): Promise<DocumentRecord> {
  if (DELETION_STATUSES.includes(document.status)) throw conflict(`Document ${document.id} is already being deleted.`);
  // While the job step prepares this run's documents, a retried step would create the document
  // again, or count it in the run's total after the deletion took it out. The run id in the
  // condition below keeps a re-ingestion from starting such a step in between.
  const job = await getIngestJob(document.ingestJobId);
  if (job && job.runId === document.runId && job.status === "PRE_PROCESSING") {
    throw conflict(`The ingest job of document ${document.id} is still preparing its documents; retry in a moment.`);
  }
  const queued = await documentUpdates.queueForDelete(document);
  if (!queued) throw conflict(`Document ${document.id} changed while it was being deleted (re-ingested or deleted meanwhile); retry.`);
  await queueOrUndo({ kind: "document", documentId: document.id }, () => documentUpdates.restoreAfterQueueFailure(queued));
  return queued;
}

/** Namespace delete: DELETING at once (no new work can enter), the cascade queued. */
export async function beginNamespaceDeletion(namespace: NamespaceRecord): Promise<NamespaceRecord> {
  const deleting = await markNamespaceDeleting(namespace);
  await queueOrUndo({ kind: "namespace", namespaceId: namespace.id }, () => restoreNamespaceActive(namespace.id));
  return deleting;
}

/**
 * Requests flip the status first and queue the work second. If the queue refuses, the flip is
 * undone, so no record ever waits for a message that was never sent.
 */
async function queueOrUndo(message: Parameters<typeof enqueue<"delete">>[1], undo: () => Promise<unknown>): Promise<void> {
  try {
    await enqueue("delete", message);
  } catch (error) {
    await undo();
    throw error;
  }
}
