import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import { afterEach, describe, expect, it } from "vitest";
import { getDocument } from "../../functions/shared/db/documents.ts";
import { getIngestJob } from "../../functions/shared/db/ingest-jobs.ts";
import { crashTimes, setFaultInjector } from "../../functions/shared/platform/fault-points.ts";
import { startJobRun } from "../../functions/shared/workflows/ingestion/run-job.ts";
import { reconcile } from "../../functions/shared/workflows/maintenance/run-reconciliation.ts";
import { STUCK_REASON } from "../../functions/shared/workflows/maintenance/sweeper.ts";
import { putObject } from "../../functions/shared/storage/objects.ts";
import { embeddedVectorStore } from "../../functions/shared/vector-store/embedded.ts";
import { listDeadLetters, redrive, run as dlqCli } from "../../scripts/dlq.ts";
import { run as reconcileCli } from "../../scripts/reconcile.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { documentsOfJob, ingestText, newNamespace, type TestNamespace, upload, waitForJob } from "../support/ingestion.ts";
import { objectKeys, vectorCount, vectorKeysOfDocument } from "../support/inventory.ts";

// Three deliveries before the dead-letter queue keeps the poison-message test short.
const api = useLocalStack({ env: { INGEST_STEP_MAX_CHUNKS: "25" }, maxReceiveCount: 3 });

afterEach(() => {
  setFaultInjector(null);
  api.stack().startWorkers();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const later = (ms: number) => new Date(Date.now() + ms);
const DIMENSION = 384;

function paragraphs(count: number, topic = "storage"): string {
  return Array.from({ length: count }, (_, index) => `Paragraph ${index} explains ${topic} detail number ${index}.\n\n`).join("");
}

async function putVector(namespaceId: string, tenantId: string | null, key: string) {
  await embeddedVectorStore().upsert({ namespaceId, tenantId, dimension: DIMENSION }, [
    { key, vector: new Float32Array(DIMENSION).fill(0.5), text: "orphan", metadata: {} },
  ]);
}

/** Takes every waiting message off a queue: the stand-in for a message lost to a crash. */
async function loseMessages(queue: "ingest" | "delete"): Promise<unknown[]> {
  const { sqs } = api.stack().clients;
  const url = api.stack().resources.queues[queue].url;
  const bodies: unknown[] = [];
  for (;;) {
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    const messages = received.Messages ?? [];
    if (messages.length === 0) return bodies;
    bodies.push(...messages.map((message) => JSON.parse(message.Body ?? "null")));
    await sqs.send(
      new DeleteMessageBatchCommand({ QueueUrl: url, Entries: messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })) }),
    );
  }
}

async function waitGone(ns: TestNamespace, path: string) {
  await expect.poll(async () => (await ns.call("GET", path)).status, { timeout: 30_000, interval: 100 }).toBe(404);
}

describe("reconciliation of orphaned objects and vectors", () => {
  it("removes exactly the orphans, leaves live data alone, and finds nothing on a second run", async () => {
    const ns = await newNamespace(api);
    const stack = api.stack();
    const referenced = await upload(ns, "guide.md", "text/markdown", `# Guide\n\n${paragraphs(10)}`);
    const managed = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "MANAGED_FILE", key: referenced } } });
    const textJob = await ingestText(ns, paragraphs(40), { config: { chunkSize: 120 } });
    await waitForJob(ns, managed.body.data.id);
    await waitForJob(ns, textJob.id);
    const [document] = await documentsOfJob(ns, textJob.id);
    const unreferenced = await upload(ns, "never-ingested.txt", "text/plain", "nobody refers to me");
    const runId = (await getDocument(document.id))!.generation!.runId;
    const liveObjects = await objectKeys(stack, `namespaces/${ns.namespaceId}/`);
    const liveVectors = await vectorKeysOfDocument(ns.namespaceId, null, document.id);
    expect(liveVectors).toHaveLength(document.totalChunks);

    const ghostNamespace = "ns_ghostghostghostghost01";
    const orphanObjects = [
      `namespaces/${ghostNamespace}/documents/doc_ghost/chunks.json`,
      `namespaces/${ghostNamespace}/uploads/abc/file.txt`,
      `namespaces/${ns.namespaceId}/documents/doc_missingmissingmissing/chunks.json`,
      `namespaces/${ns.namespaceId}/documents/doc_missingmissingmissing/runs/run1/chunks.json`,
      `namespaces/${ns.namespaceId}/jobs/job_missingmissingmissing/payload.json`,
      `namespaces/${ns.namespaceId}/documents/${document.id}/runs/deadrun/chunks.json`,
      `namespaces/${ns.namespaceId}/keyword/_/doc_missingmissingmissing/run1.json`,
    ];
    const unrecognised = `namespaces/${ns.namespaceId}/elsewhere/notes.txt`;
    for (const key of [...orphanObjects, unrecognised]) await putObject(key, "{}", "application/json");
    const orphanVectors = [
      `doc_missingmissingmissing#${runId}#0`,
      `${document.id}#deadrun#0`,
      `${document.id}#${runId}#${document.totalChunks + 3}`,
      "not-a-vector-key",
    ];
    for (const key of orphanVectors) await putVector(ns.namespaceId, null, key);
    // The document has no tenant, so its key in a tenant's partition belongs to nobody.
    await putVector(ns.namespaceId, "acme", `${document.id}#${runId}#0`);
    await putVector(ghostNamespace, null, `doc_ghost#${runId}#0`);

    const dryRun = await reconcile({ now: later(2 * HOUR), dryRun: true });
    expect(dryRun.objects).toMatchObject({ namespaceGone: 2, documentGone: 2, staleKeywordSegment: 1, jobGone: 1, staleStaging: 1, unreferencedUpload: 0 });
    expect(dryRun.vectors).toMatchObject({ documentGone: 1, staleRun: 1, beyondGeneration: 1, malformed: 1, wrongPartition: 1, partitionsDropped: 1 });
    expect((await objectKeys(stack, `namespaces/${ghostNamespace}/`)).length).toBe(2);
    expect(vectorCount(ghostNamespace)).toBe(1);

    // Two hours on: past the grace for records written late, well inside the one for uploads.
    const first = await reconcile({ now: later(2 * HOUR) });
    expect(first.objects).toMatchObject({ deleted: 7, namespaceGone: 2, documentGone: 2, staleKeywordSegment: 1, jobGone: 1, staleStaging: 1, unreferencedUpload: 0, unrecognised: 1 });
    expect(first.vectors).toMatchObject({ deleted: 5, partitionsDropped: 1 });
    expect(await objectKeys(stack, `namespaces/${ghostNamespace}/`)).toEqual([]);
    expect((await objectKeys(stack, `namespaces/${ns.namespaceId}/`)).sort()).toEqual([...liveObjects, unrecognised].sort());
    expect(liveObjects).toContain(unreferenced);
    expect(liveObjects).toContain(referenced);
    expect((await vectorKeysOfDocument(ns.namespaceId, null, document.id)).sort()).toEqual(liveVectors.sort());
    expect(vectorCount(ns.namespaceId, null)).toBe(document.totalChunks + (await documentsOfJob(ns, managed.body.data.id))[0].totalChunks);
    expect(vectorCount(ns.namespaceId, "acme")).toBe(0);
    expect((await embeddedVectorStore().listAllPartitions()).some((partition) => partition.namespaceId === ghostNamespace)).toBe(false);

    // A day on, the upload nobody used goes; the one a document uses stays.
    const dayLater = await reconcile({ now: later(25 * HOUR) });
    expect(dayLater.objects).toMatchObject({ deleted: 1, unreferencedUpload: 1 });
    expect(await objectKeys(stack, unreferenced)).toEqual([]);
    expect(await objectKeys(stack, referenced)).toEqual([referenced]);
    expect((await ns.call("POST", `/documents/${document.id}/chunks-download-url`)).status).toBe(200);

    const again = await reconcile({ now: later(25 * HOUR) });
    expect(again.objects.deleted).toBe(0);
    expect(again.vectors.deleted).toBe(0);
    expect(again.vectors.partitionsDropped).toBe(0);
  });
});

describe("the reconcile command", () => {
  it("reports without changing anything in a dry run against a deployed-style target", async () => {
    const ns = await newNamespace(api);
    const orphan = `namespaces/${ns.namespaceId}/documents/doc_clidryrunclidryrun00/chunks.json`;
    await putObject(orphan, "{}", "application/json");
    const { resources } = api.stack();
    const lines: string[] = [];
    const target = ["--table", resources.tableName, "--bucket", resources.bucketName, "--ingest-queue-url", resources.queues.ingest.url, "--delete-queue-url", resources.queues.delete.url];
    expect(await reconcileCli(["--dry-run", "--grace-minutes", "0", ...target], (line) => lines.push(line))).toBe(0);
    const output = lines.join("\n");
    expect(output).toContain("(dry run)");
    expect(output).toContain(`delete object ${orphan}: documentGone`);
    expect(output).toContain("vector pass skipped");
    expect(await objectKeys(api.stack(), orphan)).toEqual([orphan]);

    const json: string[] = [];
    expect(await reconcileCli(["--json", "--grace-minutes", "0", ...target], (line) => json.push(line))).toBe(0);
    expect(JSON.parse(json[0]!)).toMatchObject({ dryRun: false, objects: { documentGone: 1 } });
    expect(await objectKeys(api.stack(), orphan)).toEqual([]);
  });
});

describe("the sweeper", () => {
  it("queues the work of a job and of a document whose messages were lost, and both complete", async () => {
    const ns = await newNamespace(api);
    await api.stack().stopWorkers();
    const queuedJob = await ingestText(ns, paragraphs(5, "queued"));
    const processingJob = await ingestText(ns, paragraphs(5, "processing"));
    const record = (await getIngestJob(processingJob.id))!;
    await startJobRun(record.id, record.runId);
    expect((await getIngestJob(processingJob.id))!.status).toBe("PROCESSING");
    const lost = await loseMessages("ingest");
    expect(lost).toHaveLength(3);

    const fresh = await reconcile();
    expect(fresh.records.requeued).toMatchObject({ jobs: 0, documents: 0 });

    const report = await reconcile({ now: later(20 * MINUTE) });
    // The PROCESSING job waits for its document, which is swept on its own.
    expect(report.records.requeued).toMatchObject({ jobs: 1, documents: 1 });
    expect(report.records.skipped).toBe(1);
    api.stack().startWorkers();
    expect((await waitForJob(ns, queuedJob.id)).status).toBe("COMPLETED");
    expect((await waitForJob(ns, processingJob.id)).status).toBe("COMPLETED");
  });

  it("queues a lost deletion again, and the record goes", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, paragraphs(5));
    await waitForJob(ns, job.id);
    await api.stack().stopWorkers();
    expect((await ns.call("DELETE", `/ingest-jobs/${job.id}`)).status).toBe(200);
    expect(await loseMessages("delete")).toEqual([{ kind: "job", jobId: job.id }]);
    const report = await reconcile({ now: later(20 * MINUTE) });
    expect(report.records.requeued.jobDeletions).toBe(1);
    api.stack().startWorkers();
    await waitGone(ns, `/ingest-jobs/${job.id}`);
  });

  it("fails a job and a document whose work keeps dying after three sweeps, settling the job", async () => {
    const ns = await newNamespace(api);
    await api.stack().stopWorkers();
    const stuckJob = await ingestText(ns, paragraphs(3, "never starts"));
    const documentJob = await ingestText(ns, paragraphs(3, "never finishes"));
    const record = (await getIngestJob(documentJob.id))!;
    await startJobRun(record.id, record.runId);
    const [documentId] = record.documentIds;
    await loseMessages("ingest");

    for (let sweep = 1; sweep <= 3; sweep += 1) {
      const report = await reconcile({ now: later(20 * MINUTE) });
      expect(report.records.requeued, `sweep ${sweep}`).toMatchObject({ jobs: 1, documents: 1 });
      expect(report.records.failed).toMatchObject({ jobs: 0, documents: 0 });
      // Every requeued message dies with its worker.
      await loseMessages("ingest");
    }
    const last = await reconcile({ now: later(20 * MINUTE) });
    expect(last.records.failed).toMatchObject({ jobs: 1, documents: 1 });
    expect(last.records.requeued).toMatchObject({ jobs: 0, documents: 0 });
    expect(await getIngestJob(stuckJob.id)).toMatchObject({ status: "FAILED", error: STUCK_REASON });
    expect(await getDocument(documentId!)).toMatchObject({ status: "FAILED", error: STUCK_REASON });
    expect(await getIngestJob(documentJob.id)).toMatchObject({ status: "FAILED", documentsFailed: 1, error: expect.stringMatching(/1 of 1 document/) });

    const settled = await reconcile({ now: later(20 * MINUTE) });
    expect(settled.records.failed).toMatchObject({ jobs: 0, documents: 0 });
    expect(settled.records.requeued).toMatchObject({ jobs: 0, documents: 0 });
  });
});

describe("the dead-letter queue", () => {
  it("holds a deletion that kept failing, and a redrive finishes it once the fault is gone", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, paragraphs(5));
    await waitForJob(ns, job.id);
    const fault = crashTimes("delete:namespace-records-removed", 3);
    setFaultInjector(fault.injector);
    expect((await ns.call("DELETE", "")).status).toBe(200);
    const { sqs } = api.stack().clients;
    const queue = api.stack().resources.queues.delete;
    await expect
      .poll(async () => (await listDeadLetters(sqs, queue.dlqUrl)).map((letter) => JSON.parse(letter.body)), { timeout: 45_000, interval: 500 })
      .toContainEqual({ kind: "namespace", namespaceId: ns.namespaceId });
    expect(fault.crashes()).toBe(3);
    // The namespace waits, DELETING, for its cascade: nothing was lost, only paused.
    expect((await ns.call("GET", "")).body.data.status).toBe("DELETING");

    const lines: string[] = [];
    expect(await dlqCli(["list", "--queue", "delete", "--queue-url", queue.url, "--dlq-url", queue.dlqUrl], (line) => lines.push(line))).toBe(0);
    expect(lines.join("\n")).toContain(ns.namespaceId);
    expect(lines.join("\n")).toMatch(/received \d+×/);
    // Listing does not consume.
    expect((await listDeadLetters(sqs, queue.dlqUrl)).length).toBeGreaterThan(0);

    const result = await redrive(sqs, { name: "delete", queueUrl: queue.url, dlqUrl: queue.dlqUrl });
    expect(result).toEqual({ moved: 1, failed: 0 });
    await waitGone(ns, "");
    expect(await objectKeys(api.stack(), `namespaces/${ns.namespaceId}/`)).toEqual([]);
    expect(vectorCount(ns.namespaceId)).toBe(0);
    expect(await listDeadLetters(sqs, queue.dlqUrl)).toEqual([]);
  }, 90_000);

  it("moves every message back through the command-line tool", async () => {
    const { sqs } = api.stack().clients;
    const queue = api.stack().resources.queues.ingest;
    const ns = await newNamespace(api);
    const job = await ingestText(ns, paragraphs(3));
    await waitForJob(ns, job.id);
    const record = (await getIngestJob(job.id))!;
    await api.stack().stopWorkers();
    // Stale duplicates of finished work, as a redrive after an incident would carry.
    for (const size of [10, 2]) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.dlqUrl,
          Entries: Array.from({ length: size }, (_, index) => ({ Id: String(index), MessageBody: JSON.stringify({ kind: "job", jobId: job.id, runId: record.runId }) })),
        }),
      );
    }
    const lines: string[] = [];
    expect(await dlqCli(["redrive", "--queue-url", queue.url, "--dlq-url", queue.dlqUrl], (line) => lines.push(line))).toBe(0);
    expect(lines.join("\n")).toContain("moved 12 message(s)");
    expect(await listDeadLetters(sqs, queue.dlqUrl)).toEqual([]);
    expect(await loseMessages("ingest")).toHaveLength(12);
    api.stack().startWorkers();
    expect((await getIngestJob(job.id))!.status).toBe("COMPLETED");
  });
});
