/** What one reconciliation found and did (or, in a dry run, would have done). */
export interface ReconcileReport {
  dryRun: boolean;
  /** The clock the run judged ages by (the real time unless a test or an operator set another). */
  now: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** False when the time budget ran out first; the next run starts over and finishes the rest. */
  complete: boolean;
  namespaces: number;
  records: RecordCounts;
  objects: ObjectCounts;
  vectors: VectorCounts;
  /** The first findings, for an operator to read (a dry run's "what would go"). */
  findings: Finding[];
}

export interface RecordCounts {
  /** Stale records whose work message was queued again. */
  requeued: { jobs: number; documents: number; jobDeletions: number; documentDeletions: number; namespaceDeletions: number };
  /** Stale records given up on after too many sweeps: now FAILED with "worker stopped responding". */
  failed: { jobs: number; documents: number; jobDeletions: number; documentDeletions: number };
  /** Stale-looking records left alone because something else owns their progress (their job, a live cascade). */
  skipped: number;
}

export interface ObjectCounts {
  scanned: number;
  deleted: number;
  namespaceGone: number;
  documentGone: number;
  jobGone: number;
  staleStaging: number;
  staleKeywordSegment: number;
  unreferencedUpload: number;
  /** Keys under a live namespace in no layout the service writes; reported, never deleted. */
  unrecognised: number;
}

export interface VectorCounts {
  partitions: number;
  scanned: number;
  deleted: number;
  documentGone: number;
  /** The document lives in another namespace or belongs to another tenant than the partition. */
  wrongPartition: number;
  /** The key's run is not the document's current, retired or in-progress generation. */
  staleRun: number;
  /** The run is live but the sequence lies beyond its chunk count. */
  beyondGeneration: number;
  malformed: number;
  /** Whole partitions of namespaces that no longer exist. */
  partitionsDropped: number;
}

export interface Finding {
  kind: "object" | "vector" | "partition" | "job" | "document" | "namespace";
  id: string;
  action: "delete" | "requeue" | "fail" | "report";
  reason: string;
}

export const MAX_FINDINGS = 200;

export function emptyReport(dryRun: boolean, now: Date): ReconcileReport {
  const started = new Date().toISOString();
  return {
    dryRun,
    now: now.toISOString(),
    startedAt: started,
    finishedAt: started,
    durationMs: 0,
    complete: true,
    namespaces: 0,
    records: {
      requeued: { jobs: 0, documents: 0, jobDeletions: 0, documentDeletions: 0, namespaceDeletions: 0 },
      failed: { jobs: 0, documents: 0, jobDeletions: 0, documentDeletions: 0 },
      skipped: 0,
    },
    objects: {
      scanned: 0,
      deleted: 0,
      namespaceGone: 0,
      documentGone: 0,
      jobGone: 0,
      staleStaging: 0,
      staleKeywordSegment: 0,
      unreferencedUpload: 0,
      unrecognised: 0,
    },
    vectors: {
      partitions: 0,
      scanned: 0,
      deleted: 0,
      documentGone: 0,
      wrongPartition: 0,
      staleRun: 0,
      beyondGeneration: 0,
      malformed: 0,
      partitionsDropped: 0,
    },
    findings: [],
  };
}

export function addFinding(report: ReconcileReport, finding: Finding): void {
  if (report.findings.length < MAX_FINDINGS) report.findings.push(finding);
}

/** Everything the run removed, requeued or failed: zero means the system was already consistent. */
export function totalRepairs(report: ReconcileReport): number {
  const { requeued, failed } = report.records;
  return (
    report.objects.deleted +
    report.vectors.deleted +
    report.vectors.partitionsDropped +
    Object.values(requeued).reduce((sum, count) => sum + count, 0) +
    Object.values(failed).reduce((sum, count) => sum + count, 0)
  );
}
