import { conflict } from "../../domain/errors.ts";
import { faultPoint } from "../../platform/fault-points.ts";
import { newId } from "../../platform/ids.ts";
import { documentUpdates, getDocuments } from "../../db/documents.ts";
import { getIngestJob, jobUpdates } from "../../db/ingest-jobs.ts";
import type { IngestJobRecord } from "../../domain/ingest-job.ts";
import { DELETION_STATUSES, WORKING_STATUSES } from "../../domain/statuses.ts";
import { enqueue } from "../../queue/send.ts";

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
  const moved = await jobUpdates.queueForResync(job, runId);
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
    const reset = await documentUpdates.resetForRun(document, job.runId);
    if (reset) inRun += 1;
  }
  return inRun;
}
