import { beforeAll, describe, expect, it } from "vitest";
import { documentChanges, documentTarget } from "../../functions/shared/db/documents.ts";
import { jobChanges, jobTarget } from "../../functions/shared/db/ingest-jobs.ts";
import { transitionUpdate, type TransitionSpec } from "../../functions/shared/db/dynamo/transitions.ts";
import type { DocumentRecord } from "../../functions/shared/domain/document.ts";
import type { IngestJobRecord } from "../../functions/shared/domain/ingest-job.ts";
import { DOCUMENT_LIFECYCLE, JOB_LIFECYCLE, type Lifecycle, statusesLeadingTo } from "../../functions/shared/domain/lifecycle.ts";
import { DELETION_STATUSES, STATUSES, type Status } from "../../functions/shared/domain/statuses.ts";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import { aDocument, aJob } from "../support/records.ts";

beforeAll(() => {
  // transitionUpdate only names the table; nothing is written.
  process.env[ENV.tableName] = "lifecycle-test";
});

const NOT_DELETING = STATUSES.filter((status) => !DELETION_STATUSES.includes(status));
const RUNNING: Status[] = ["QUEUED", "QUEUED_FOR_RESYNC", "PRE_PROCESSING", "PROCESSING"];
const REINGESTABLE: Status[] = ["BACKLOG", "QUEUED", "QUEUED_FOR_RESYNC", "COMPLETED", "FAILED", "CANCELLED"];

/** The status changes the workflows make, read from them (run-job, process-document, settlement, reingest, deletion, sweeper). */
function codeMoves(kind: "job" | "document"): Set<string> {
  const moves = new Set<string>();
  const add = (from: readonly Status[], to: Status) => from.forEach((status) => moves.add(`${status} → ${to}`));
  add(["QUEUED", "QUEUED_FOR_RESYNC"], "PRE_PROCESSING"); // a run starts
  add(["PRE_PROCESSING"], "PROCESSING"); // documents created / chunks staged
  add(["PROCESSING"], "COMPLETED"); // the run (or the document) finished
  add(RUNNING, "FAILED"); // a run's step fails for good
  add(DELETION_STATUSES, "FAILED"); // a deletion keeps failing
  add(NOT_DELETING, "QUEUED_FOR_DELETE"); // a deletion request
  add(DELETION_STATUSES, "DELETING"); // the delete worker takes it over
  if (kind === "job") {
    add(REINGESTABLE, "QUEUED_FOR_RESYNC"); // a re-ingestion
  } else {
    add(NOT_DELETING, "QUEUED_FOR_RESYNC"); // its job's re-ingestion resets it, whatever its old run left it in
    add(NOT_DELETING, "DELETING"); // its job's deletion takes it
  }
  return moves;
}

function tableMoves(lifecycle: Lifecycle): Set<string> {
  return new Set(STATUSES.flatMap((from) => lifecycle[from].map((to) => `${from} → ${to}`)));
}

function job(status: Status, statusBeforeDelete: Status | null = null): IngestJobRecord {
  return aJob({ status, statusBeforeDelete });
}

function document(status: Status, statusBeforeDelete: Status | null = null): DocumentRecord {
  return aDocument({ status, statusBeforeDelete });
}

const checkpoint = { runId: "run1", stagingKey: "k", embedded: 0, totalChunks: 1, totalCharacters: 5, totalPages: 1, tokens: 0 };
const extraction = { runId: "run1", sourceKey: "s", etag: "e", fileSize: 1, mimeType: "application/pdf", totalPages: 2, nextPage: 2, parts: [] };

/** Every change of a repository, with the arguments the workflows call it with, for a record as read. */
const JOB_CALLS: Record<keyof typeof jobChanges, (record: IngestJobRecord) => TransitionSpec> = {
  startPreProcessing: (record) => jobChanges.startPreProcessing(record),
  startProcessing: (record) => jobChanges.startProcessing(record, 1),
  complete: (record) => jobChanges.complete(record),
  fail: (record) => jobChanges.fail(record, "reason"),
  queueForResync: (record) => jobChanges.queueForResync(record, "run2"),
  queueForDelete: (record) => jobChanges.queueForDelete(record, { onRun: true }),
  restoreAfterQueueFailure: (record) => jobChanges.restoreAfterQueueFailure(record),
  startDeleting: (record) => jobChanges.startDeleting(record),
  failDeletion: (record) => jobChanges.failDeletion(record, "reason"),
  recordSweep: (record) => jobChanges.recordSweep(record, { key: "run1:ingest", count: 1 }),
};

const DOCUMENT_CALLS: Record<keyof typeof documentChanges, (record: DocumentRecord) => TransitionSpec> = {
  startPreProcessing: (record) => documentChanges.startPreProcessing(record),
  saveExtraction: (record) => documentChanges.saveExtraction(record, extraction, null),
  startProcessing: (record) => documentChanges.startProcessing(record, { properties: null, checkpoint }),
  advanceCheckpoint: (record) => documentChanges.advanceCheckpoint(record, checkpoint, 0),
  complete: (record) =>
    documentChanges.complete(record, {
      totalChunks: 1,
      totalCharacters: 5,
      totalPages: 1,
      totalTokens: 0,
      generation: { runId: "run1", totalChunks: 1 },
      retiredGeneration: null,
    }),
  fail: (record) => documentChanges.fail(record, "reason"),
  clearRetiredGeneration: (record) => documentChanges.clearRetiredGeneration(record),
  resetForRun: (record) => documentChanges.resetForRun(record, "run2"),
  queueForDelete: (record) => documentChanges.queueForDelete(record),
  restoreAfterQueueFailure: (record) => documentChanges.restoreAfterQueueFailure(record),
  startDeleting: (record) => documentChanges.startDeleting(record),
  startDeletingWithJob: (record) => documentChanges.startDeletingWithJob(record),
  failDeletion: (record) => documentChanges.failDeletion(record, "reason"),
  recordSweep: (record) => documentChanges.recordSweep(record, { key: "run1:ingest", count: 1 }),
};

/** The statuses a condition accepts, read back from the UpdateItem. */
function conditionStatuses(update: ReturnType<typeof transitionUpdate>): Status[] {
  return Object.entries(update.ExpressionAttributeValues)
    .filter(([name]) => name.startsWith(":from"))
    .map(([, value]) => value as Status);
}

describe("the lifecycle of jobs and documents", () => {
  it("holds exactly the status changes the workflows make", () => {
    expect([...tableMoves(JOB_LIFECYCLE)].sort()).toEqual([...codeMoves("job")].sort());
    expect([...tableMoves(DOCUMENT_LIFECYCLE)].sort()).toEqual([...codeMoves("document")].sort());
  });

  it("accepts every change of the job repository, on a record in any status", () => {
    for (const [name, call] of Object.entries(JOB_CALLS)) {
      for (const status of STATUSES) {
        for (const before of name === "restoreAfterQueueFailure" ? [null, ...NOT_DELETING] : [null]) {
          const record = job(status, before);
          expect(() => transitionUpdate(jobTarget(record), call(record)), `${name} from ${status}`).not.toThrow();
        }
      }
    }
  });

  it("accepts every change of the document repository on the records the workflows call it with", () => {
    for (const [name, call] of Object.entries(DOCUMENT_CALLS)) {
      const statuses = name === "resetForRun" ? NOT_DELETING : STATUSES;
      for (const status of statuses) {
        const record = document(status, name === "restoreAfterQueueFailure" ? "COMPLETED" : null);
        expect(() => transitionUpdate(documentTarget(record), call(record)), `${name} from ${status}`).not.toThrow();
      }
    }
  });

  it("conditions a change whose caller does not narrow it on every status that may lead to its target", () => {
    const queued = transitionUpdate(jobTarget(job("COMPLETED")), jobChanges.queueForDelete(job("COMPLETED"), { onRun: false }));
    expect(conditionStatuses(queued)).toEqual(NOT_DELETING);
    const resync = transitionUpdate(jobTarget(job("FAILED")), jobChanges.queueForResync(job("FAILED"), "run2"));
    expect(conditionStatuses(resync)).toEqual(REINGESTABLE);
    const deleting = transitionUpdate(documentTarget(document("PROCESSING")), documentChanges.startDeletingWithJob(document("PROCESSING")));
    expect(conditionStatuses(deleting)).toEqual([...STATUSES]);
    expect(statusesLeadingTo(JOB_LIFECYCLE, "DELETING")).toEqual(["QUEUED_FOR_DELETE", "DELETING"]);
  });

  it("refuses a change the table does not hold, before anything is written", () => {
    expect(() => transitionUpdate(jobTarget(job("QUEUED")), { to: "COMPLETED", from: ["QUEUED"] })).toThrow("ingest job: QUEUED → COMPLETED is not in the lifecycle");
    expect(() => transitionUpdate(jobTarget(job("PROCESSING")), { to: "QUEUED_FOR_RESYNC", from: ["PROCESSING"] })).toThrow(/PROCESSING → QUEUED_FOR_RESYNC/);
    expect(() => transitionUpdate(documentTarget(document("DELETING")), documentChanges.resetForRun(document("DELETING"), "run2"))).toThrow(
      "document: DELETING → QUEUED_FOR_RESYNC is not in the lifecycle",
    );
    expect(() => transitionUpdate(documentTarget(document("COMPLETED")), { to: "PROCESSING", from: ["COMPLETED"] })).toThrow(/COMPLETED → PROCESSING/);
    const undone = document("QUEUED_FOR_DELETE", "DELETING");
    expect(() => transitionUpdate(documentTarget(undone), documentChanges.restoreAfterQueueFailure(undone))).toThrow("cannot be undone to DELETING");
  });
});
