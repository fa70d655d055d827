import type { ReconcileReport } from "./report.ts";

/** What every pass of a reconciliation shares: its clock, its limits and the report it fills. */
export interface ReconcileContext {
  now: Date;
  dryRun: boolean;
  /** A working record untouched for longer than this is taken for stuck. */
  staleAfterMs: number;
  /** Uploads nothing refers to are kept this long, so a client can still create its job. */
  uploadGraceMs: number;
  /**
   * Objects whose owner may not be written yet (a job's payload and a document's source text are
   * stored just before their records) or whose run may still be moving are kept this long.
   */
  graceMs: number;
  /** Times a stuck record's work is queued again before it is failed instead. */
  maxSweeps: number;
  report: ReconcileReport;
  /** True once the time budget is spent: passes stop at their next page. */
  budgetSpent(): boolean;
}

export function ageMs(context: ReconcileContext, timestamp: Date | string | undefined): number {
  if (timestamp === undefined) return Number.POSITIVE_INFINITY;
  return context.now.getTime() - new Date(timestamp).getTime();
}

/** True (and the report marked incomplete) once the budget is spent. */
export function outOfTime(context: ReconcileContext): boolean {
  if (!context.budgetSpent()) return false;
  context.report.complete = false;
  return true;
}
