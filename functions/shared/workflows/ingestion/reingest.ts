import { conflict } from "../../domain/errors.ts";
import { faultPoint } from "../../platform/fault-points.ts";
import { newId } from "../../platform/ids.ts";
import { nowIso } from "../../platform/time.ts";
import { documentTarget, getDocuments } from "../../db/documents.ts";
import { getIngestJob, jobTarget } from "../../db/ingest-jobs.ts";
import { transition } from "../../db/transitions.ts";
import type { IngestJobRecord } from "../../domain/ingest-job.ts";
import { DELETION_STATUSES, type Status, WORKING_STATUSES } from "../../domain/statuses.ts";
import { enqueue } from "../../queue/send.ts";

const REINGESTABLE: readonly Status[] = ["BACKLOG", "QUEUED", "QUEUED_FOR_RESYNC", "COMPLETED", "FAILED", "CANCELLED"];

/** The moments and outcome of a run that starts now: queued, nothing else yet. */
function freshRun() {
  return { queuedAt: nowIso(), preProcessingAt: null, processingAt: null, completedAt: null, failedAt: null, error: null };
}

export function newRunId(): string {
  return newId("ingestJob").slice("job_".length);
}

function refusal(job: IngestJobRecord): string | null {
  if (DELETION_STATUSES.includes(job.status)) return `Ingest job ${job.id} is being deleted.`;
  if (WORKING_STATUSES.includes(job.status)) return `Ingest job ${job.id} is being processed; re-ingest it once it is COMPLETED or FAILED.`;
  return null;
}

/**
 * reingestJob: starts a new run of the job. The run id changes in the same conditional write as the status,
 * so messages of the previous run become stale, and a concurrent deletion (conditioned on the old
 * run id) or second re-ingestion loses with a 409. Documents keep their ids and their current
 * vectors stay searchable until the new run replaces them.
 */
export async function requestReingest(job: IngestJobRecord): Promise<void> {
  const refused = refusal(job);
  if (refused) throw conflict(refused);
  await faultPoint("request:job-read");
  const runId = newRunId();
  const moved = await transition<IngestJobRecord>(jobTarget(job), {
    to: "QUEUED_FOR_RESYNC",
    from: REINGESTABLE,
    runId: job.runId,
    set: { runId, ...freshRun(), documentsCompleted: 0, documentsFailed: 0 },
  });
  if (!moved) {
    const current = await getIngestJob(job.id);
    throw conflict((current && refusal(current)) ?? `Ingest job ${job.id} changed while it was being re-ingested; retry.`);
  }
  await resetDocumentsForRun(moved);
  await enqueue("ingest", { kind: "job", jobId: job.id, runId });
}

/**
 * Puts the job's documents on the job's current run as QUEUED_FOR_RESYNC. Documents being deleted
 * are left out. Repeating it is harmless, which is how the worker makes up for a request that died
 * half-way.
 */
export async function resetDocumentsForRun(job: IngestJobRecord): Promise<number> {
  const documents = await getDocuments(job.documentIds);
  let inRun = 0;
  for (const document of documents.values()) {
    if (DELETION_STATUSES.includes(document.status)) continue;
    if (document.runId === job.runId) {
      inRun += 1;
      continue;
    }
    const reset = await transition(documentTarget(document), {
      to: "QUEUED_FOR_RESYNC",
      from: document.status === "QUEUED_FOR_RESYNC" ? ["QUEUED_FOR_RESYNC"] : [document.status],
      runId: document.runId,
      set: { runId: job.runId, ...freshRun(), checkpoint: null },
    });
    if (reset) inRun += 1;
  }
  return inRun;
}
