import { logger } from "../../platform/logger.ts";
import type { ReconcileContext } from "./context.ts";
import { reconcileObjects } from "./orphan-objects.ts";
import { reconcileVectors } from "./orphan-vectors.ts";
import { emptyReport, type ReconcileReport } from "./report.ts";
import { sweepStuckRecords } from "./sweeper.ts";
import { scanTable } from "../../db/table-scan.ts";

export type { ReconcileReport } from "./report.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const RECONCILE_DEFAULTS = {
  staleAfterMs: 15 * MINUTE,
  // Upload URLs live an hour; a day leaves a client ample time to create the job that uses the file.
  uploadGraceMs: 24 * HOUR,
  graceMs: HOUR,
  maxSweeps: 3,
} as const;

export interface ReconcileOptions {
  /** The clock ages are judged by; tests move it forward instead of waiting. */
  now?: Date;
  /** Find and count everything, change nothing. */
  dryRun?: boolean;
  staleAfterMs?: number;
  uploadGraceMs?: number;
  graceMs?: number;
  maxSweeps?: number;
  /** Skip the vector pass (a process that cannot reach the store the workers write to). */
  skipVectors?: boolean;
  /** Milliseconds left to work; passes stop at their next page when it runs low. */
  remainingMs?: () => number;
}

/** Stop starting pages when less than this is left: the page in hand must still finish. */
const SAFETY_MARGIN_MS = 60_000;

/**
 * Finds and repairs what failures left behind, in three passes: stuck records get their work queued
 * again (and are failed after too many tries), objects whose owner record is gone are deleted, and
 * vectors no document generation claims are deleted. Every decision re-reads the records it rests
 * on and every action is idempotent, so runs may overlap, repeat or stop half-way.
 */
export async function reconcile(options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const started = Date.now();
  const now = options.now ?? new Date();
  const report = emptyReport(options.dryRun ?? false, now);
  const remainingMs = options.remainingMs;
  const context: ReconcileContext = {
    now,
    dryRun: options.dryRun ?? false,
    staleAfterMs: options.staleAfterMs ?? RECONCILE_DEFAULTS.staleAfterMs,
    uploadGraceMs: options.uploadGraceMs ?? RECONCILE_DEFAULTS.uploadGraceMs,
    graceMs: options.graceMs ?? RECONCILE_DEFAULTS.graceMs,
    maxSweeps: options.maxSweeps ?? RECONCILE_DEFAULTS.maxSweeps,
    report,
    budgetSpent: () => remainingMs !== undefined && remainingMs() < SAFETY_MARGIN_MS,
  };

  const inventory = await scanTable(new Date(now.getTime() - context.staleAfterMs));
  report.namespaces = inventory.namespaces.length;
  await sweepStuckRecords(inventory, context);
  await reconcileObjects(context);
  if (!options.skipVectors) await reconcileVectors(inventory.namespaces, context);

  report.finishedAt = new Date().toISOString();
  report.durationMs = Date.now() - started;
  logger.info("reconciliation finished", { report: { ...report, findings: report.findings.length } });
  return report;
}
