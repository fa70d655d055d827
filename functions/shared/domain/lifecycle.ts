import { DELETION_STATUSES, STATUSES, type Status } from "./statuses.ts";

/**
 * The status changes an ingest job and a document may make: for each status, the statuses it may
 * move to. The repositories refuse any other change as a programming error, and a conditional write
 * whose caller does not narrow the current status is conditioned on every status listed here as
 * leading to its target. A write that keeps the status (a checkpoint, a sweep count) is not a change.
 *
 * The paths: a run moves QUEUED (or QUEUED_FOR_RESYNC) → PRE_PROCESSING → PROCESSING → COMPLETED,
 * or to FAILED from any working status; a re-ingestion moves a settled record back to
 * QUEUED_FOR_RESYNC; a deletion request moves any record to QUEUED_FOR_DELETE, the delete worker
 * to DELETING, and a deletion that keeps failing ends FAILED. BACKLOG, CANCELLING and CANCELLED are
 * spec statuses nothing enters today. The one move back is outside the table (`mayRestore`): a
 * deletion request whose message cannot be queued returns the record to the status it had.
 */
export type Lifecycle = Readonly<Record<Status, readonly Status[]>>;

// Written out in full, with no computed rows: the table is read by people, and a module without
// top-level calls stays out of bundles that never change a status.
export const JOB_LIFECYCLE: Lifecycle = {
  BACKLOG: ["QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE"],
  QUEUED: ["PRE_PROCESSING", "FAILED", "QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE"],
  QUEUED_FOR_RESYNC: ["PRE_PROCESSING", "FAILED", "QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE"],
  PRE_PROCESSING: ["PROCESSING", "FAILED", "QUEUED_FOR_DELETE"],
  PROCESSING: ["COMPLETED", "FAILED", "QUEUED_FOR_DELETE"],
  COMPLETED: ["QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE"],
  FAILED: ["QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE"],
  CANCELLING: ["QUEUED_FOR_DELETE"],
  CANCELLED: ["QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE"],
  QUEUED_FOR_DELETE: ["DELETING", "FAILED"],
  DELETING: ["DELETING", "FAILED"],
};

/**
 * A document differs from its job in two ways: a re-ingestion resets every document of the job
 * that is not being deleted, whatever its status (a document of an earlier, failed run may still be
 * working), and a job's deletion takes its documents straight to DELETING.
 */
export const DOCUMENT_LIFECYCLE: Lifecycle = {
  BACKLOG: ["QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE", "DELETING"],
  QUEUED: ["PRE_PROCESSING", "FAILED", "QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE", "DELETING"],
  QUEUED_FOR_RESYNC: ["PRE_PROCESSING", "FAILED", "QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE", "DELETING"],
  PRE_PROCESSING: ["PROCESSING", "FAILED", "QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE", "DELETING"],
  PROCESSING: ["COMPLETED", "FAILED", "QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE", "DELETING"],
  COMPLETED: ["QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE", "DELETING"],
  FAILED: ["QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE", "DELETING"],
  CANCELLING: ["QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE", "DELETING"],
  CANCELLED: ["QUEUED_FOR_RESYNC", "QUEUED_FOR_DELETE", "DELETING"],
  QUEUED_FOR_DELETE: ["DELETING", "FAILED"],
  DELETING: ["DELETING", "FAILED"],
};

/**
 * Undoing a deletion request: QUEUED_FOR_DELETE back to the status the request found (FAILED when
 * the record does not say). Kept out of the table so that no status counts as leading, say, to
 * QUEUED_FOR_RESYNC merely because a deletion could be undone to it.
 */
export function mayRestore(from: Status, to: Status): boolean {
  return from === "QUEUED_FOR_DELETE" && !DELETION_STATUSES.includes(to);
}

export function mayMove(lifecycle: Lifecycle, from: Status, to: Status): boolean {
  return lifecycle[from].includes(to);
}

/** Every status the lifecycle lets move to `to`, in the spec's order. */
export function statusesLeadingTo(lifecycle: Lifecycle, to: Status): Status[] {
  return STATUSES.filter((from) => mayMove(lifecycle, from, to));
}

/** Throws (a programming error, never a client's) when any of `from` may not move to `to`. */
export function assertMoves(lifecycle: Lifecycle, name: string, from: readonly Status[], to: Status): void {
  const refused = from.filter((status) => !mayMove(lifecycle, status, to));
  if (refused.length > 0) throw new Error(`${name}: ${refused.join(", ")} → ${to} is not in the lifecycle`);
}
