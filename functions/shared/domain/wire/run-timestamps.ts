import type { IngestJobRecord } from "../ingest-job.ts";
import type { DocumentRecord } from "../document.ts";

type RunTimestamps = Pick<IngestJobRecord & DocumentRecord, "createdAt" | "queuedAt" | "preProcessingAt" | "processingAt" | "completedAt" | "failedAt">;

/** When a job or document was created and last entered each state of its run, as both wire shapes carry it. */
export function runTimestampsToWire(record: RunTimestamps): RunTimestamps {
  return {
    createdAt: record.createdAt,
    queuedAt: record.queuedAt,
    preProcessingAt: record.preProcessingAt,
    processingAt: record.processingAt,
    completedAt: record.completedAt,
    failedAt: record.failedAt,
  };
}
