import { documentUpdates, getDocument, getDocuments } from "../../db/documents.ts";
import { getIngestJob, jobUpdates } from "../../db/ingest-jobs.ts";
import type { DocumentRecord } from "../../domain/document.ts";
import type { IngestJobRecord } from "../../domain/ingest-job.ts";
import type { NamespaceRecord } from "../../domain/namespace.ts";
import { DELETION_STATUSES, FINAL_STATUSES, QUEUED_STATUSES } from "../../domain/statuses.ts";
import { failDeletion } from "../deletion/cascades.ts";
import { logger } from "../../platform/logger.ts";
import { enqueue } from "../../queue/send.ts";
import { ageMs, outOfTime, type ReconcileContext } from "./context.ts";
import { addFinding } from "./report.ts";
import type { TableInventory } from "../../db/table-scan.ts";
import { failDocument, failJobRun } from "../ingestion/settlement.ts";

export const STUCK_REASON = "worker stopped responding";

/**
 * How often a record's work was queued again by the sweeper, per run and kind of work, so that a
 * new run or a deletion starts counting afresh while one run that always dies is counted up.
 */
interface SweepCount {
  key: string;
  count: number;
}

type Swept<T> = T & { sweeps?: SweepCount | null };

type Verdict = "requeue" | "fail" | "moved";

/**
 * The sweeper: a record that has sat in a working status for longer than `staleAfterMs` lost its
 * message (a crash between a status change and a send, a message redriven nowhere). Its message is
 * queued again — every worker step is idempotent, so a duplicate of live work only repeats a check —
 * and after `maxSweeps` of those the record is failed, so nothing stays stuck forever.
 */
export async function sweepStuckRecords(inventory: TableInventory, context: ReconcileContext): Promise<void> {
  for (const namespace of inventory.namespaces) {
    if (outOfTime(context)) return;
    await sweepNamespace(namespace, context);
  }
  for (const job of inventory.staleJobs) {
    if (outOfTime(context)) return;
    await sweepJob(job.id, context);
  }
  for (const document of inventory.staleDocuments) {
    if (outOfTime(context)) return;
    await sweepDocument(document.id, context);
  }
}

function isStale(record: { updatedAt: string }, context: ReconcileContext): boolean {
  return ageMs(context, record.updatedAt) > context.staleAfterMs;
}

/**
 * A namespace has no FAILED status and its deletion must finish, so its cascade is queued again on
 * every sweep; the cascade is idempotent and resumes where it stopped.
 */
async function sweepNamespace(namespace: NamespaceRecord, context: ReconcileContext): Promise<void> {
  if (namespace.status !== "DELETING" || !isStale(namespace, context)) return;
  context.report.records.requeued.namespaceDeletions += 1;
  addFinding(context.report, { kind: "namespace", id: namespace.id, action: "requeue", reason: "deletion stalled" });
  if (!context.dryRun) await enqueue("delete", { kind: "namespace", namespaceId: namespace.id });
}

async function sweepJob(jobId: string, context: ReconcileContext): Promise<void> {
  const job = await getIngestJob(jobId);
  if (!job || !isStale(job, context)) return;
  if (DELETION_STATUSES.includes(job.status)) {
    const verdict = await claimSweep(job, (sweeps) => jobUpdates.recordSweep(job, sweeps), "delete", context);
    if (verdict === "requeue") {
      context.report.records.requeued.jobDeletions += 1;
      if (!context.dryRun) await enqueue("delete", { kind: "job", jobId });
    } else if (verdict === "fail") {
      context.report.records.failed.jobDeletions += 1;
      if (!context.dryRun) await failDeletion("job", jobId, STUCK_REASON);
    }
    record(context, "job", jobId, verdict, "deletion stalled");
    return;
  }
  if (FINAL_STATUSES.includes(job.status)) return;
  // A job waits for its documents as long as they work; they are swept on their own, and the
  // job only counts as stuck once none of its run is left working.
  if (job.status === "PROCESSING" && (await hasUnsettledDocuments(job))) {
    context.report.records.skipped += 1;
    return;
  }
  const verdict = await claimSweep(job, (sweeps) => jobUpdates.recordSweep(job, sweeps), "ingest", context);
  if (verdict === "requeue") {
    context.report.records.requeued.jobs += 1;
    if (!context.dryRun) await enqueue("ingest", { kind: "job", jobId, runId: job.runId });
  } else if (verdict === "fail") {
    context.report.records.failed.jobs += 1;
    if (!context.dryRun) await failJobRun(jobId, job.runId, STUCK_REASON);
  }
  record(context, "job", jobId, verdict, `stalled in ${job.status}`);
}

async function hasUnsettledDocuments(job: IngestJobRecord): Promise<boolean> {
  const documents = await getDocuments(job.documentIds);
  return [...documents.values()].some(
    (document) => document.runId === job.runId && !FINAL_STATUSES.includes(document.status) && !DELETION_STATUSES.includes(document.status),
  );
}

async function sweepDocument(documentId: string, context: ReconcileContext): Promise<void> {
  const document = await getDocument(documentId);
  if (!document || !isStale(document, context) || FINAL_STATUSES.includes(document.status)) return;
  const job = await getIngestJob(document.ingestJobId);
  if (DELETION_STATUSES.includes(document.status)) {
    // Inside a job's cascade the job's own sweep drives the document's deletion.
    if (job && DELETION_STATUSES.includes(job.status)) {
      context.report.records.skipped += 1;
      return;
    }
    const verdict = await claimSweep(document, (sweeps) => documentUpdates.recordSweep(document, sweeps), "delete", context);
    if (verdict === "requeue") {
      context.report.records.requeued.documentDeletions += 1;
      if (!context.dryRun) await enqueue("delete", { kind: "document", documentId });
    } else if (verdict === "fail") {
      context.report.records.failed.documentDeletions += 1;
      if (!context.dryRun) await failDeletion("document", documentId, STUCK_REASON);
    }
    record(context, "document", documentId, verdict, "deletion stalled");
    return;
  }
  if (!ownedByItsDocuments(job, document)) {
    context.report.records.skipped += 1;
    return;
  }
  const verdict = await claimSweep(document, (sweeps) => documentUpdates.recordSweep(document, sweeps), "ingest", context);
  if (verdict === "requeue") {
    context.report.records.requeued.documents += 1;
    if (!context.dryRun) await enqueue("ingest", { kind: "document", documentId, runId: document.runId });
  } else if (verdict === "fail") {
    context.report.records.failed.documents += 1;
    if (!context.dryRun) await failDocument(documentId, document.runId, STUCK_REASON);
  }
  record(context, "document", documentId, verdict, `stalled in ${document.status}`);
}

/**
 * Whether the document's progress is its own to drive. Before its job has fanned the run out, a
 * document message would run ahead of the job step (which then resets the run's counts), so the
 * job's sweep queues the job step instead; a job being deleted takes its documents with it.
 */
function ownedByItsDocuments(job: IngestJobRecord | null, document: DocumentRecord): boolean {
  if (!job || job.runId !== document.runId) return false;
  return !QUEUED_STATUSES.includes(job.status) && job.status !== "PRE_PROCESSING" && !DELETION_STATUSES.includes(job.status);
}

/**
 * Counts one sweep on the record, conditional on the record being exactly as read (same status,
 * run and `updatedAt`): if a worker touched it meanwhile it is alive and left alone, and two
 * reconcilers running at once cannot both act on it. The write also refreshes `updatedAt`, so the
 * queued message gets a full `staleAfterMs` before the next sweep.
 */
async function claimSweep(
  record: Swept<{ runId: string }>,
  write: (sweeps: SweepCount) => Promise<unknown>,
  work: "ingest" | "delete",
  context: ReconcileContext,
): Promise<Verdict> {
  const key = `${record.runId}:${work}`;
  const count = (record.sweeps?.key === key ? record.sweeps.count : 0) + 1;
  const verdict: Verdict = count > context.maxSweeps ? "fail" : "requeue";
  if (context.dryRun) return verdict;
  const claimed = await write({ key, count });
  return claimed ? verdict : "moved";
}

function record(context: ReconcileContext, kind: "job" | "document", id: string, verdict: Verdict, reason: string): void {
  if (verdict === "moved") return;
  addFinding(context.report, { kind, id, action: verdict, reason });
  if (!context.dryRun) logger.warn(verdict === "fail" ? "stuck record failed" : "stuck record requeued", { kind, id, reason });
}
