import { deleteEmbeddingPointersOf } from "../../db/embedding-pointers.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { faultPoint } from "../../platform/fault-points.ts";
import { deleteDocumentItem, documentIdsOfNamespace, documentUpdates, getDocument, removeDocumentRecord, removeUploadReference, uploadIsReferenced } from "../../db/documents.ts";
import { getHosting, removeHosting } from "../../db/hosting.ts";
import { getIngestJob, jobIdsOfNamespace, jobUpdates } from "../../db/ingest-jobs.ts";
import { removeJobWithPayload } from "../ingestion/stored-payloads.ts";
import { getNamespace, removeNamespaceRecord } from "../../db/namespaces.ts";
import type { DocumentRecord, VectorGeneration } from "../../domain/document.ts";
import type { IngestJobRecord } from "../../domain/ingest-job.ts";
import type { NamespaceRecord } from "../../domain/namespace.ts";
import { DELETION_STATUSES } from "../../domain/statuses.ts";
import { deleteObjects, deletePrefix } from "../../storage/objects.ts";
import { documentPrefix, namespacePrefix } from "../../storage/object-keys.ts";
import { vectorStore } from "../../vector-store/index.ts";
import { vectorKeysOf } from "../../domain/chunks.ts";
import type { StepBudget, StepResult } from "../step-budget.ts";
import { partitionOf } from "../../domain/partitions.ts";
import { finishJobIfDone } from "../ingestion/settlement.ts";
import type { DeleteMessage } from "../../queue/messages.ts";
import { enqueue } from "../../queue/send.ts";

/** Leave this much of an invocation for the follow-up message and the last step's writes. */
const SAFETY_MARGIN_MS = 30_000;

/*
 * The delete worker's steps are idempotent and records go last: a crash at any point leaves the
 * record DELETING, and the redelivered message finishes the work.
 */

/**
 * Everything a document put anywhere: the vectors of every generation it may have written, its
 * files (chunks, staging, stored text) and its uploaded file once no other document uses it.
 */
async function purgeDocumentData(document: DocumentRecord, namespace: NamespaceRecord | null): Promise<void> {
  const generations: VectorGeneration[] = [document.generation, document.retiredGeneration].filter(
    (generation): generation is VectorGeneration => generation !== null && generation !== undefined,
  );
  if (document.checkpoint) generations.push({ runId: document.checkpoint.runId, totalChunks: document.checkpoint.totalChunks });
  if (namespace) {
    const partition = partitionOf(document, namespace);
    for (const generation of generations) {
      await (await vectorStore()).deleteKeys(partition, vectorKeysOf(document.id, generation.runId, generation.totalChunks));
    }
  }
  await deleteEmbeddingPointersOf(document.id);
  await deletePrefix(documentPrefix(document.namespaceId, document.id));
  if (document.source.type === "MANAGED_FILE") {
    const key = document.source.key;
    await removeUploadReference(key, document.id);
    if (!(await uploadIsReferenced(key))) await deleteObjects([key]);
  }
}

/**
 * One message of the delete queue: its cascade, which a follow-up message continues when it did not
 * finish within the invocation's budget. Every step is idempotent, so a repeated message finishes the work.
 */
export async function runDeletion(message: DeleteMessage, budget: StepBudget): Promise<void> {
  let result: StepResult = "done";
  if (message.kind === "namespace") result = await deleteNamespaceCascade(message.namespaceId, budget);
  if (message.kind === "job") result = await deleteJobCascade(message.jobId, budget);
  if (message.kind === "document") await deleteDocumentCascade(message.documentId);
  if (result === "continue") await enqueue("delete", message);
}

/** deleteDocument's work: the document goes, and its job's counts of the current run follow. */
async function deleteDocumentCascade(documentId: string): Promise<void> {
  let document = await getDocument(documentId);
  if (!document || !DELETION_STATUSES.includes(document.status)) return;
  document = (await documentUpdates.startDeleting(document)) ?? document;
  await faultPoint("delete:document-deleting");
  await purgeDocumentData(document, await getNamespace(document.namespaceId));
  await faultPoint("delete:document-purged");
  await removeDocumentRecord(document);
  await finishJobIfDone(document.ingestJobId, document.runId);
}

/** deleteIngestJob's work: every document of the job, then the job itself. */
async function deleteJobCascade(jobId: string, budget: StepBudget): Promise<StepResult> {
  let job = await getIngestJob(jobId);
  if (!job || !DELETION_STATUSES.includes(job.status)) return "done";
  job = (await jobUpdates.startDeleting(job)) ?? job;
  const namespace = await getNamespace(job.namespaceId);
  for (const documentId of job.documentIds) {
    if (budget.remainingMs() < SAFETY_MARGIN_MS) return "continue";
    const document = await getDocument(documentId);
    if (!document) continue;
    // DELETING stops any work still in flight for the document at its next step.
    const deleting = await documentUpdates.startDeletingWithJob(document);
    await purgeDocumentData(deleting ?? document, namespace);
    await deleteDocumentItem(documentId);
    await faultPoint("delete:job-document-removed");
  }
  await removeJobWithPayload(job);
  return "done";
}

/**
 * How long after the namespace went DELETING its cascade waits before reading the indexes. Index
 * entries follow their records a moment late (within a fraction of a second under normal
 * conditions, AWS says); after this, every job written before the deletion began is listed, and
 * none can be written after it (creating a job condition-checks an ACTIVE namespace).
 */
const INDEX_SETTLE_MS = 5_000;

/**
 * Everything in the namespace: jobs and their documents, stray files, vector partitions, hosting,
 * then the namespace. The indexes are read once, page after page; they may still list records
 * deleted a moment ago, so every entry is re-read (strongly) and skipped when its record is gone.
 */
async function deleteNamespaceCascade(namespaceId: string, budget: StepBudget): Promise<StepResult> {
  const namespace = await getNamespace(namespaceId);
  // Already gone (a duplicate delivery), or the deletion was rolled back: nothing to do.
  if (!namespace || namespace.status !== "DELETING") return "done";
  const untilSettled = Date.parse(namespace.updatedAt) + INDEX_SETTLE_MS - Date.now();
  if (untilSettled > 0) {
    if (budget.remainingMs() - untilSettled < SAFETY_MARGIN_MS) return "continue";
    await sleep(untilSettled);
  }
  for await (const page of jobIdsOfNamespace(namespaceId)) {
    for (const jobId of page) {
      if (budget.remainingMs() < SAFETY_MARGIN_MS) return "continue";
      const job = await getIngestJob(jobId);
      if (!job || job.namespaceId !== namespaceId) continue;
      if ((await deleteJobOfNamespace(job, budget)) === "continue") return "continue";
    }
  }
  for await (const page of documentIdsOfNamespace(namespaceId)) {
    for (const documentId of page) {
      if (budget.remainingMs() < SAFETY_MARGIN_MS) return "continue";
      const document = await getDocument(documentId);
      if (!document || document.namespaceId !== namespaceId) continue;
      // A job still there was written too late for the job index when it was read: it goes whole.
      const job = await getIngestJob(document.ingestJobId);
      if (job) {
        if ((await deleteJobOfNamespace(job, budget)) === "continue") return "continue";
        continue;
      }
      // Its job record went first in an interrupted cascade.
      await purgeDocumentData(document, namespace);
      await deleteDocumentItem(document.id);
    }
  }
  await faultPoint("delete:namespace-records-removed");
  await deletePrefix(namespacePrefix(namespaceId));
  const store = (await vectorStore());
  for (const { tenantId } of await store.listPartitions(namespaceId)) {
    await store.dropPartition({ namespaceId, tenantId, dimension: partitionOf({ namespaceId, tenantId }, namespace).dimension });
  }
  const hosting = await getHosting(namespaceId);
  if (hosting) await removeHosting(hosting, false);
  await removeNamespaceRecord(namespace);
  return "done";
}

async function deleteJobOfNamespace(job: IngestJobRecord, budget: StepBudget): Promise<StepResult> {
  if (!DELETION_STATUSES.includes(job.status)) {
    await jobUpdates.queueForDelete(job, { onRun: false });
  }
  return deleteJobCascade(job.id, budget);
}

/** A deletion that keeps failing ends FAILED with the reason; deleting again retries it. */
export async function failDeletion(kind: "job" | "document", id: string, reason: string): Promise<void> {
  if (kind === "job") {
    const job = await getIngestJob(id);
    if (job) await jobUpdates.failDeletion(job, reason);
  } else {
    const document = await getDocument(id);
    if (document) await documentUpdates.failDeletion(document, reason);
  }
}

