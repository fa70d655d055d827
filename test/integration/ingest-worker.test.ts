import { createServer, type Server } from "node:http";
import { ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getIngestJob } from "../../functions/shared/db/ingest-jobs.ts";
import { getDocument } from "../../functions/shared/db/documents.ts";
import { setFaultInjector } from "../../functions/shared/platform/fault-points.ts";
import { embeddedVectorStore } from "../../functions/shared/vector-store/embedded.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { queuesDrained } from "../support/queues.ts";
import { documentsOfJob, ingestText, newNamespace, waitForJob } from "../support/ingestion.ts";

// Small steps force long documents through several resumable invocations; private URLs are allowed
// so the FILE payload can be served from this machine.
const api = useLocalStack({ env: { INGEST_STEP_MAX_CHUNKS: "40", ALLOW_PRIVATE_FILE_URLS: "true" } });

afterEach(() => setFaultInjector(null));

function longText(sections: number): string {
  return Array.from({ length: sections }, (_, index) => `Paragraph ${index} talks about topic ${index % 13} in some detail.\n\n`).join("");
}

async function vectorsOf(namespaceId: string, tenantId: string | null = null) {
  return embeddedVectorStore().size({ namespaceId, tenantId });
}

describe("the ingest worker", () => {
  it("processes a long document in several resumable steps and indexes each chunk once", async () => {
    const ns = await newNamespace(api);
    const text = longText(400);
    const job = await ingestText(ns, text, { config: { chunkSize: 100 } });
    const done = await waitForJob(ns, job.id);
    expect(done.status).toBe("COMPLETED");
    const [document] = await documentsOfJob(ns, job.id);
    expect(document.totalChunks).toBeGreaterThan(120);
    expect(await vectorsOf(ns.namespaceId)).toBe(document.totalChunks);
  });

  it("survives a crash after a batch was written: the retry resumes and nothing is duplicated", async () => {
    const ns = await newNamespace(api);
    let crashes = 0;
    setFaultInjector((point) => {
      if (point === "document:batch-written" && crashes < 2) {
        crashes += 1;
        throw new Error("simulated crash");
      }
    });
    const job = await ingestText(ns, longText(200), { config: { chunkSize: 100 } });
    const done = await waitForJob(ns, job.id);
    expect(crashes).toBe(2);
    expect(done.status).toBe("COMPLETED");
    const [document] = await documentsOfJob(ns, job.id);
    expect(await vectorsOf(ns.namespaceId)).toBe(document.totalChunks);
    const chunksFile: any = await (await fetch((await ns.call("POST", `/documents/${document.id}/chunks-download-url`)).body.data.url)).json();
    expect(chunksFile.chunks.map((chunk: { text: string }) => chunk.text).join("")).toBe(longText(200));
  });

  it("survives a crash after settling a document: the job still completes exactly once", async () => {
    const ns = await newNamespace(api);
    let crashed = false;
    setFaultInjector((point) => {
      if (point === "document:settled" && !crashed) {
        crashed = true;
        throw new Error("simulated crash");
      }
    });
    const job = await ingestText(ns, "A short document.");
    const done = await waitForJob(ns, job.id);
    expect(crashed).toBe(true);
    expect(done.status).toBe("COMPLETED");
    const record = await getIngestJob(job.id);
    expect(record).toMatchObject({ documentsCompleted: 1, documentsFailed: 0 });
  });

  it("ignores duplicate deliveries of job and document messages once the work is done", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, longText(30), { config: { chunkSize: 200 } });
    await waitForJob(ns, job.id);
    const [document] = await documentsOfJob(ns, job.id);
    const record = await getIngestJob(job.id);
    const queueUrl = api.stack().resources.queues.ingest.url;
    for (const body of [
      { kind: "job", jobId: job.id, runId: record!.runId },
      { kind: "document", documentId: document.id, runId: record!.runId },
      { kind: "document", documentId: document.id, runId: record!.runId },
    ]) {
      await api.stack().clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
    }
    await queuesDrained(api, ["ingest"]);
    expect(await getIngestJob(job.id)).toMatchObject({ status: "COMPLETED", documentsCompleted: 1, documentsFailed: 0 });
    expect(await getDocument(document.id)).toMatchObject({ status: "COMPLETED", totalChunks: document.totalChunks });
    expect(await vectorsOf(ns.namespaceId)).toBe(document.totalChunks);
  });

  it("keeps each tenant's jobs, documents and vectors apart", async () => {
    const ns = await newNamespace(api);
    const acme = { "x-tenant-id": "acme" };
    const globex = { "x-tenant-id": "globex" };
    const acmeJob = await ingestText(ns, "Acme's private text.", {}, acme);
    const globexJob = await ingestText(ns, "Globex's private text.", {}, globex);
    const sharedJob = await ingestText(ns, "Text without a tenant.");
    expect(acmeJob.tenantId).toBe("acme");
    expect(sharedJob.tenantId).toBeNull();
    await waitForJob(ns, acmeJob.id, undefined, acme);
    await waitForJob(ns, globexJob.id, undefined, globex);
    await waitForJob(ns, sharedJob.id);

    const acmeJobs = (await ns.call("GET", "/ingest-jobs", { headers: acme })).body.data.map((job: { id: string }) => job.id);
    expect(acmeJobs).toEqual([acmeJob.id]);
    const everyJob = (await ns.call("GET", "/ingest-jobs")).body.data.map((job: { id: string }) => job.id);
    expect(everyJob.sort()).toEqual([acmeJob.id, globexJob.id, sharedJob.id].sort());
    expect((await ns.call("GET", `/ingest-jobs/${globexJob.id}`, { headers: acme })).status).toBe(404);
    expect((await ns.call("GET", `/ingest-jobs/${globexJob.id}`)).status).toBe(200);

    const [globexDocument] = await documentsOfJob(ns, globexJob.id, globex);
    expect((await ns.call("GET", `/documents/${globexDocument.id}`, { headers: acme })).status).toBe(404);
    expect((await ns.call("POST", `/documents/${globexDocument.id}/chunks-download-url`, { headers: acme })).status).toBe(404);
    expect((await ns.call("GET", `/documents?ingestJobId=${globexJob.id}`, { headers: acme })).body.data).toEqual([]);
    const acmeDocuments = (await ns.call("GET", "/documents", { headers: acme })).body.data;
    expect(acmeDocuments.map((document: { tenantId: string }) => document.tenantId)).toEqual(["acme"]);

    expect(await vectorsOf(ns.namespaceId, "acme")).toBe(1);
    expect(await vectorsOf(ns.namespaceId, "globex")).toBe(1);
    expect(await vectorsOf(ns.namespaceId, null)).toBe(1);
    expect((await ns.call("GET", "/ingest-jobs", { headers: { "x-tenant-id": "bad-tenant!" } })).status).toBe(400);
  });
});

describe("FILE payloads", () => {
  let server: Server;
  let origin = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/guide.md") {
        res.writeHead(200, { "content-type": "text/markdown; charset=utf-8" });
        res.end("# Guide\n\nHow to use the product.\n");
      } else if (req.url === "/moved") {
        res.writeHead(302, { location: "/guide.md" });
        res.end();
      } else {
        res.writeHead(404);
        res.end("missing");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("fetches the URL (following redirects) and names the document after it", async () => {
    const ns = await newNamespace(api);
    const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "FILE", fileUrl: `${origin}/moved` } } });
    expect(created.status).toBe(201);
    const job = await waitForJob(ns, created.body.data.id);
    expect(job.status).toBe("COMPLETED");
    const [document] = await documentsOfJob(ns, job.id);
    expect(document).toMatchObject({ name: "moved", source: { type: "FILE", fileUrl: `${origin}/moved` }, properties: { mimeType: "text/markdown" } });
  });

  it("fails the document with the HTTP status when the URL answers 404", async () => {
    const ns = await newNamespace(api);
    const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "FILE", fileUrl: `${origin}/nothing.txt` } } });
    const job = await waitForJob(ns, created.body.data.id);
    expect(job.status).toBe("FAILED");
    const [document] = await documentsOfJob(ns, job.id);
    expect(document.error).toMatch(/HTTP 404/);
  });
});

describe("messages that keep failing", () => {
  it("fail the document with the reason on the last delivery and land in the dead-letter queue", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, "This document always crashes its worker.");
    let attempts = 0;
    setFaultInjector((point) => {
      if (point === "document:pre-processing") {
        attempts += 1;
        throw new Error("parser exploded");
      }
    });
    const failed = await waitForJob(ns, job.id, ["FAILED"]);
    expect(attempts).toBe(5);
    const [document] = await documentsOfJob(ns, job.id);
    expect(document).toMatchObject({ status: "FAILED", error: expect.stringContaining("parser exploded") });
    expect(failed.error).toMatch(/1 of 1 document/);
    const dlq = await api.stack().clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: api.stack().resources.queues.ingest.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 2 }),
    );
    expect((dlq.Messages ?? []).map((message) => JSON.parse(message.Body ?? "{}").documentId)).toContain(document.id);
  }, 90_000);
});
