/** The status values of the interface spec, shared by ingest jobs and documents. */
export const STATUSES = [
  "BACKLOG",
  "QUEUED",
  "QUEUED_FOR_RESYNC",
  "QUEUED_FOR_DELETE",
  "PRE_PROCESSING",
  "PROCESSING",
  "DELETING",
  "CANCELLING",
  "COMPLETED",
  "FAILED",
  "CANCELLED",
] as const;

export type Status = (typeof STATUSES)[number];

/** Statuses in which a worker owns the record: deletion and re-ingestion must wait or conflict. */
export const WORKING_STATUSES: readonly Status[] = ["PRE_PROCESSING", "PROCESSING"];
export const DELETION_STATUSES: readonly Status[] = ["QUEUED_FOR_DELETE", "DELETING"];
export const QUEUED_STATUSES: readonly Status[] = ["QUEUED", "QUEUED_FOR_RESYNC"];
export const FINAL_STATUSES: readonly Status[] = ["COMPLETED", "FAILED", "CANCELLED"];
/** The statuses of a run in progress (queued or being worked on), from which a job or document may fail. */
export const RUNNING_STATUSES: readonly Status[] = [...QUEUED_STATUSES, ...WORKING_STATUSES];
