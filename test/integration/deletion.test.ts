import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { afterEach, describe, expect, it } from "vitest";
import { getIngestJob } from "../../functions/shared/db/ingest-jobs.ts";
import { setFaultInjector } from "../../functions/shared/platform/fault-points.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { queuesDrained } from "../support/queues.ts";
import { documentsOfJob, ingestText, newNamespace, type TestNamespace, upload, waitForJob } from "../support/ingestion.ts";
import { objectKeys, tableItemsMentioning, vectorCount, vectorKeysOfDocument } from "../support/inventory.ts";

const api = useLocalStack({ env: { INGEST_STEP_MAX_CHUNKS: "25" } });

afterEach(() => setFaultInjector(null));

function paragraphs(count: number, topic = "storage"): string {
  return Array.from({ length: count }, (_, index) => `Paragraph ${index} explains ${topic} detail number ${index}.\n\n`).join("");
}

async function waitGone(ns: TestNamespace, path: string) {
  await expect.poll(async () => (await ns.call("GET", path)).status, { timeout: 30_000, interval: 100 }).toBe(404);
}

/** Nothing of the job (or its documents) remains in the table, the bucket or the vector store. */
async function expectNothingLeftOf(ns: TestNamespace, jobId: string, documentIds: string[]) {
  const stack = api.stack();
  expect(await tableItemsMentioning(stack, jobId)).toEqual([]);
  for (const documentId of documentIds) {
    expect(await tableItemsMentioning(stack, documentId)).toEqual([]);
    expect(await objectKeys(stack, `namespaces/${ns.namespaceId}/documents/${documentId}/`)).toEqual([]);
    expect(await vectorKeysOfDocument(ns.namespaceId, null, documentId)).toEqual([]);
  }
  expect(await objectKeys(stack, `namespaces/${ns.namespaceId}/jobs/${jobId}/`)).toEqual([]);
}

describe("deleting an ingest job (deleteIngestJob)", () => {
  it("answers 200 with the job QUEUED_FOR_DELETE, 409 to a second delete, then removes the job, its documents and every trace", async () => {
    const ns = await newNamespace(api);
    const key = await upload(ns, "notes.md", "text/markdown", `# Notes\n\n${paragraphs(20)}`);
    const created = await ns.call("POST", "/ingest-jobs", {
      body: { payload: { type: "BATCH", items: [{ type: "MANAGED_FILE", key }, { type: "TEXT", text: paragraphs(10) }] }, externalId: "to-delete" },
    });
    const job = await waitForJob(ns, created.body.data.id);
    const documents = await documentsOfJob(ns, job.id);
    expect(documents).toHaveLength(2);

    const deleted = await ns.call("DELETE", `/ingest-jobs/${job.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ id: job.id, status: "QUEUED_FOR_DELETE" });
    const again = await ns.call("DELETE", `/ingest-jobs/${job.id}`);
    expect([409, 404]).toContain(again.status);

    await waitGone(ns, `/ingest-jobs/${job.id}`);
    for (const document of documents) expect((await ns.call("GET", `/documents/${document.id}`)).status).toBe(404);
    expect((await ns.call("GET", "/ingest-jobs")).body.data).toEqual([]);
    expect((await ns.call("GET", "/documents")).body.data).toEqual([]);
    await expectNothingLeftOf(ns, job.id, documents.map((document) => document.id));
    expect(await objectKeys(api.stack(), key)).toEqual([]);
    expect(vectorCount(ns.namespaceId)).toBe(0);
    // The externalId is free again.
    expect((await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "TEXT", text: "again" }, externalId: "to-delete" } })).status).toBe(201);
  });

  it("stops work in flight: a job deleted while processing leaves nothing behind", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, paragraphs(600), { config: { chunkSize: 100 } });
    await waitForJob(ns, job.id, ["PROCESSING", "COMPLETED"]);
    const [document] = await documentsOfJob(ns, job.id);
    expect((await ns.call("DELETE", `/ingest-jobs/${job.id}`)).status).toBe(200);
    await waitGone(ns, `/ingest-jobs/${job.id}`);
    // Any step still in flight notices and takes back what it wrote before its message is done.
    await queuesDrained(api);
    await expectNothingLeftOf(ns, job.id, [document.id]);
    expect(vectorCount(ns.namespaceId)).toBe(0);
  });

  it("answers 404 for another tenant's job and leaves it alone", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, "tenant text", {}, { "x-tenant-id": "acme" });
    expect((await ns.call("DELETE", `/ingest-jobs/${job.id}`, { headers: { "x-tenant-id": "globex" } })).status).toBe(404);
    expect((await ns.call("GET", `/ingest-jobs/${job.id}`)).status).toBe(200);
  });
});

describe("deleting a document (deleteDocument)", () => {
  it("removes only that document and keeps its job's counts right", async () => {
    const ns = await newNamespace(api);
    const created = await ns.call("POST", "/ingest-jobs", {
      body: { payload: { type: "BATCH", items: [{ type: "TEXT", text: paragraphs(5, "alpha") }, { type: "TEXT", text: paragraphs(5, "beta") }] } },
    });
    const job = await waitForJob(ns, created.body.data.id);
    const [first, second] = await documentsOfJob(ns, job.id);
    const deleted = await ns.call("DELETE", `/documents/${first.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ id: first.id, status: "QUEUED_FOR_DELETE" });
    expect([409, 404]).toContain((await ns.call("DELETE", `/documents/${first.id}`)).status);
    await waitGone(ns, `/documents/${first.id}`);
    expect((await ns.call("GET", `/documents/${second.id}`)).body.data.status).toBe("COMPLETED");
    expect(await vectorKeysOfDocument(ns.namespaceId, null, first.id)).toEqual([]);
    expect((await vectorKeysOfDocument(ns.namespaceId, null, second.id)).length).toBe(second.totalChunks);
    expect(await getIngestJob(job.id)).toMatchObject({ status: "COMPLETED", documentsTotal: 1, documentsCompleted: 1 });
    expect((await ns.call("GET", "/documents")).body.data.map((document: { id: string }) => document.id)).toEqual([second.id]);
  });

  it("lets a job whose remaining document was deleted mid-run still settle", async () => {
    const ns = await newNamespace(api);
    await api.stack().stopWorkers();
    let documentId = "";
    try {
      const created = await ns.call("POST", "/ingest-jobs", {
        body: { payload: { type: "BATCH", items: [{ type: "TEXT", text: "kept" }, { type: "TEXT", text: "dropped" }] } },
      });
      const { startJobRun } = await import("../../functions/shared/workflows/ingestion/run-job.ts");
      const record = await getIngestJob(created.body.data.id);
      await startJobRun(record!.id, record!.runId);
      documentId = record!.documentIds[1]!;
      expect((await ns.call("DELETE", `/documents/${documentId}`)).status).toBe(200);
    } finally {
      api.stack().startWorkers();
    }
    await waitGone(ns, `/documents/${documentId}`);
    const jobId = (await ns.call("GET", "/ingest-jobs")).body.data[0].id;
    const job = await waitForJob(ns, jobId);
    expect(job.status).toBe("COMPLETED");
  });
});

describe("re-ingesting a job (reingestJob)", () => {
  it("answers 200 with only the id, keeps document ids, and replaces exactly the chunks of a 200-chunk document", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, paragraphs(200), { config: { chunkSize: 60 } });
    await waitForJob(ns, job.id);
    const [before] = await documentsOfJob(ns, job.id);
    expect(before.totalChunks).toBeGreaterThanOrEqual(200);
    const oldRun = (await getIngestJob(job.id))!.runId;

    const response = await ns.call("POST", `/ingest-jobs/${job.id}/re-ingest`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: { id: job.id } });
    const queued = (await ns.call("GET", `/ingest-jobs/${job.id}`)).body.data;
    expect(["QUEUED_FOR_RESYNC", "PRE_PROCESSING", "PROCESSING", "COMPLETED"]).toContain(queued.status);

    const done = await waitForJob(ns, job.id);
    expect(done.status).toBe("COMPLETED");
    const newRun = (await getIngestJob(job.id))!.runId;
    expect(newRun).not.toBe(oldRun);
    const [after] = await documentsOfJob(ns, job.id);
    expect(after.id).toBe(before.id);
    expect(after.totalChunks).toBe(before.totalChunks);
    const keys = await vectorKeysOfDocument(ns.namespaceId, null, after.id);
    expect(keys).toHaveLength(after.totalChunks);
    expect(keys.every((key) => key.startsWith(`${after.id}#${newRun}#`))).toBe(true);
    const chunksFile: any = await (await fetch((await ns.call("POST", `/documents/${after.id}/chunks-download-url`)).body.data.url)).json();
    expect(chunksFile.total_chunks).toBe(after.totalChunks);
    expect(chunksFile.chunks.map((chunk: { text: string }) => chunk.text).join("")).toBe(paragraphs(200));
    expect(await objectKeys(api.stack(), `namespaces/${ns.namespaceId}/documents/${after.id}/runs/`)).toEqual([]);
  });

  it("re-reads a MANAGED_FILE job's stored file", async () => {
    const ns = await newNamespace(api);
    const key = await upload(ns, "faq.md", "text/markdown", "# FAQ\n\nQuestion and answer.\n");
    const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "MANAGED_FILE", key } } });
    await waitForJob(ns, created.body.data.id);
    expect((await ns.call("POST", `/ingest-jobs/${created.body.data.id}/re-ingest`)).status).toBe(200);
    const done = await waitForJob(ns, created.body.data.id);
    expect(done.status).toBe("COMPLETED");
    const [document] = await documentsOfJob(ns, done.id);
    expect(document.properties).toEqual({ fileSize: 28, mimeType: "text/markdown" });
  });

  it("answers 409 while the job is processing or being deleted, and 404 for an unknown job", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, paragraphs(800), { config: { chunkSize: 100 } });
    await waitForJob(ns, job.id, ["PROCESSING"]);
    const busy = await ns.call("POST", `/ingest-jobs/${job.id}/re-ingest`);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe("conflict");
    expect((await ns.call("DELETE", `/ingest-jobs/${job.id}`)).status).toBe(200);
    expect((await ns.call("POST", `/ingest-jobs/${job.id}/re-ingest`)).status).toBe(409);
    expect((await ns.call("POST", "/ingest-jobs/job_0000000000000000000000/re-ingest")).status).toBe(404);
    await waitGone(ns, `/ingest-jobs/${job.id}`);
  });

  it("re-ingest then delete leaves nothing behind", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, paragraphs(100), { config: { chunkSize: 80 } });
    await waitForJob(ns, job.id);
    const [document] = await documentsOfJob(ns, job.id);
    expect((await ns.call("POST", `/ingest-jobs/${job.id}/re-ingest`)).status).toBe(200);
    expect((await ns.call("DELETE", `/ingest-jobs/${job.id}`)).status).toBe(200);
    await waitGone(ns, `/ingest-jobs/${job.id}`);
    // Work in flight over; an earlier test's stepped-aside copy, due in a minute, finds its job gone.
    await queuesDrained(api, ["ingest", "delete"], { delayed: false });
    await expectNothingLeftOf(ns, job.id, [document.id]);
    expect(vectorCount(ns.namespaceId)).toBe(0);
  });

  it("lets exactly one of a concurrent delete and re-ingest win, leaving a consistent state", async () => {
    for (let round = 0; round < 3; round += 1) {
      const ns = await newNamespace(api);
      const job = await ingestText(ns, paragraphs(20));
      await waitForJob(ns, job.id);
      const [document] = await documentsOfJob(ns, job.id);
      // Hold both requests after they have read the job until both have, so they truly race.
      let arrived = 0;
      let release: () => void = () => undefined;
      const barrier = new Promise<void>((resolve) => (release = resolve));
      setFaultInjector(async (point) => {
        if (point !== "request:job-read") return;
        arrived += 1;
        if (arrived === 2) release();
        await barrier;
      });
      const [deleted, reingested] = await Promise.all([
        ns.call("DELETE", `/ingest-jobs/${job.id}`),
        ns.call("POST", `/ingest-jobs/${job.id}/re-ingest`),
      ]);
      setFaultInjector(null);
      expect([deleted.status, reingested.status].sort()).toEqual([200, 409]);
      if (deleted.status === 200) {
        await waitGone(ns, `/ingest-jobs/${job.id}`);
        await expectNothingLeftOf(ns, job.id, [document.id]);
      } else {
        const done = await waitForJob(ns, job.id);
        expect(done.status).toBe("COMPLETED");
        expect((await vectorKeysOfDocument(ns.namespaceId, null, document.id)).length).toBe(document.totalChunks);
      }
    }
  });
});

describe("deletion under duplicate delivery and crashes", () => {
  it("ignores repeated delete messages for work already done", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, paragraphs(10));
    await waitForJob(ns, job.id);
    const [document] = await documentsOfJob(ns, job.id);
    expect((await ns.call("DELETE", `/documents/${document.id}`)).status).toBe(200);
    expect((await ns.call("DELETE", `/ingest-jobs/${job.id}`)).status).toBe(200);
    await waitGone(ns, `/ingest-jobs/${job.id}`);
    const queueUrl = api.stack().resources.queues.delete.url;
    for (const body of [{ kind: "job", jobId: job.id }, { kind: "document", documentId: document.id }, { kind: "namespace", namespaceId: ns.namespaceId }]) {
      await api.stack().clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
    }
    // Work in flight over; an earlier test's stepped-aside copy, due in a minute, finds its job gone.
    await queuesDrained(api, ["ingest", "delete"], { delayed: false });
    await expectNothingLeftOf(ns, job.id, [document.id]);
    expect((await ns.call("GET", "/")).status).toBe(200);
  });

  it.each([
    "delete:document-deleting",
    "delete:document-purged",
  ])("finishes a document deletion after a crash at %s", async (point) => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, paragraphs(30));
    await waitForJob(ns, job.id);
    const [document] = await documentsOfJob(ns, job.id);
    let crashed = false;
    setFaultInjector((reached) => {
      if (reached === point && !crashed) {
        crashed = true;
        throw new Error(`simulated crash at ${point}`);
      }
    });
    expect((await ns.call("DELETE", `/documents/${document.id}`)).status).toBe(200);
    await waitGone(ns, `/documents/${document.id}`);
    expect(crashed).toBe(true);
    expect(await vectorKeysOfDocument(ns.namespaceId, null, document.id)).toEqual([]);
    // Only the job still mentions the document (its fixed list of document ids).
    const mentions = await tableItemsMentioning(api.stack(), document.id);
    expect(mentions.map((item) => item.entityType)).toEqual(["IngestJob"]);
    expect(await getIngestJob(job.id)).toMatchObject({ documentsTotal: 0, documentsCompleted: 0 });
  });

  it("finishes a job deletion after a crash between two documents", async () => {
    const ns = await newNamespace(api);
    const created = await ns.call("POST", "/ingest-jobs", {
      body: { payload: { type: "BATCH", items: [1, 2, 3].map((n) => ({ type: "TEXT", text: paragraphs(5, `topic${n}`) })) } },
    });
    const job = await waitForJob(ns, created.body.data.id);
    const documents = await documentsOfJob(ns, job.id);
    let crashes = 0;
    setFaultInjector((point) => {
      if (point === "delete:job-document-removed" && crashes < 2) {
        crashes += 1;
        throw new Error("simulated crash");
      }
    });
    expect((await ns.call("DELETE", `/ingest-jobs/${job.id}`)).status).toBe(200);
    await waitGone(ns, `/ingest-jobs/${job.id}`);
    expect(crashes).toBe(2);
    await expectNothingLeftOf(ns, job.id, documents.map((document) => document.id));
  });

  it.each(["job:pre-processing", "job:documents-created", "document:pre-processing", "document:chunks-staged", "document:chunks-published"])(
    "re-ingestion finishes after a crash at %s, with exactly one set of chunks",
    async (point) => {
      const ns = await newNamespace(api);
      const job = await ingestText(ns, paragraphs(60), { config: { chunkSize: 120 } });
      await waitForJob(ns, job.id);
      let crashed = false;
      setFaultInjector((reached) => {
        if (reached === point && !crashed) {
          crashed = true;
          throw new Error(`simulated crash at ${point}`);
        }
      });
      expect((await ns.call("POST", `/ingest-jobs/${job.id}/re-ingest`)).status).toBe(200);
      await expect.poll(() => crashed, { timeout: 20_000 }).toBe(true);
      const done = await waitForJob(ns, job.id);
      expect(done.status).toBe("COMPLETED");
      const [document] = await documentsOfJob(ns, job.id);
      const runId = (await getIngestJob(job.id))!.runId;
      const keys = await vectorKeysOfDocument(ns.namespaceId, null, document.id);
      expect(keys).toHaveLength(document.totalChunks);
      expect(keys.every((key) => key.startsWith(`${document.id}#${runId}#`))).toBe(true);
      expect(await getIngestJob(job.id)).toMatchObject({ documentsCompleted: 1, documentsFailed: 0, documentsTotal: 1 });
    },
  );
});

describe("deleting a namespace", () => {
  it("removes every job, document, file, upload, vector partition and the hosting record", async () => {
    const ns = await newNamespace(api);
    const key = await upload(ns, "guide.md", "text/markdown", `# Guide\n\n${paragraphs(15)}`);
    const unused = await upload(ns, "unused.txt", "text/plain", "never ingested");
    await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "MANAGED_FILE", key } } });
    const tenantJob = await ingestText(ns, paragraphs(12), {}, { "x-tenant-id": "acme" });
    const plainJob = await ingestText(ns, paragraphs(8));
    await waitForJob(ns, tenantJob.id, undefined, { "x-tenant-id": "acme" });
    await waitForJob(ns, plainJob.id);
    expect((await ns.call("POST", "/hosting", { body: {} })).status).toBe(201);
    expect(vectorCount(ns.namespaceId, "acme")).toBeGreaterThan(0);

    const deleted = await ns.call("DELETE", "");
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.status).toBe("DELETING");
    expect((await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "TEXT", text: "late" } } })).status).toBe(409);
    await waitGone(ns, "");

    const stack = api.stack();
    expect(await tableItemsMentioning(stack, ns.namespaceId)).toEqual([]);
    expect(await objectKeys(stack, `namespaces/${ns.namespaceId}/`)).toEqual([]);
    expect(await objectKeys(stack, unused)).toEqual([]);
    expect(vectorCount(ns.namespaceId, null)).toBe(0);
    expect(vectorCount(ns.namespaceId, "acme")).toBe(0);
  });
});
