import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { documentsOfJob, ingestText, newNamespace, upload, waitForJob } from "../support/ingestion.ts";

const api = useLocalStack();

function markdownCorpus(bytes: number): string {
  const words = ["retrieval", "augmented", "generation", "vector", "namespace", "tenant", "chunk", "embedding", "document", "search"];
  const parts: string[] = [];
  let size = 0;
  for (let section = 0; size < bytes; section += 1) {
    const heading = `## Section ${section}\n\n`;
    const sentences = Array.from({ length: 12 }, (_, index) => {
      const sentence = Array.from({ length: 9 }, (_, w) => words[(section * 7 + index * 3 + w) % words.length]).join(" ");
      return `${sentence[0]!.toUpperCase()}${sentence.slice(1)} ${section}-${index}.`;
    });
    const block = `${heading}${sentences.join(" ")}\n\n`;
    parts.push(block);
    size += block.length;
  }
  return parts.join("");
}

describe("uploading, ingesting and downloading a Markdown file", () => {
  it("takes a 5 MB upload to COMPLETED with correct totals, a chunks file that reassembles it, and the same bytes back", async () => {
    const ns = await newNamespace(api);
    const text = markdownCorpus(5 * 1024 * 1024);
    const key = await upload(ns, "handbook.md", "text/markdown", text);
    expect(key.startsWith(`namespaces/${ns.namespaceId}/uploads/`)).toBe(true);

    const created = await ns.call("POST", "/ingest-jobs", { body: { name: "handbook", payload: { type: "MANAGED_FILE", key } } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ status: "QUEUED", name: "handbook", tenantId: null, externalId: null, config: null });
    const job = await waitForJob(ns, created.body.data.id);
    expect(job.status).toBe("COMPLETED");
    for (const moment of ["createdAt", "queuedAt", "preProcessingAt", "processingAt", "completedAt"]) expect(job[moment]).toEqual(expect.any(String));
    expect(job.failedAt).toBeNull();
    expect(job.preProcessingAt <= job.processingAt && job.processingAt <= job.completedAt).toBe(true);

    const [document] = await documentsOfJob(ns, job.id);
    expect(document).toMatchObject({
      ingestJobId: job.id,
      name: "handbook.md",
      status: "COMPLETED",
      source: { type: "MANAGED_FILE", key },
      properties: { fileSize: Buffer.byteLength(text), mimeType: "text/markdown" },
      totalCharacters: text.length,
      totalPages: Math.ceil(text.length / 1000),
    });
    expect(document.totalChunks).toBeGreaterThan(text.length / 2048);
    expect(document.totalTokens).toBeGreaterThan(0);

    const chunksUrl = await ns.call("POST", `/documents/${document.id}/chunks-download-url`);
    expect(chunksUrl.status).toBe(200);
    const chunksFile: any = await (await fetch(chunksUrl.body.data.url)).json();
    expect(chunksFile.total_chunks).toBe(document.totalChunks);
    expect(chunksFile.total_characters).toBe(text.length);
    expect(chunksFile.chunks.map((chunk: { text: string }) => chunk.text).join("")).toBe(text);
    expect(chunksFile.chunks.every((chunk: { text: string }) => chunk.text.length <= 2048)).toBe(true);
    expect(chunksFile.chunks[3].metadata.sequence_number).toBe(3);
    expect(chunksFile.metadata).toMatchObject({ documentId: document.id, namespaceId: ns.namespaceId, filename: "handbook.md" });

    const fileUrl = await ns.call("POST", `/documents/${document.id}/file-download-url`);
    expect(fileUrl.status).toBe(200);
    const download = await fetch(fileUrl.body.data.url);
    expect(download.headers.get("content-disposition")).toContain('filename="handbook.md"');
    expect(await download.text()).toBe(text);
  });

  it("refuses a PUT with another Content-Type or another size than the one signed", async () => {
    const ns = await newNamespace(api);
    const body = "# Title\n\nBody text.";
    const target = await ns.call("POST", "/uploads", { body: { fileName: "a.md", contentType: "text/markdown", fileSize: body.length } });
    const wrongType = await fetch(target.body.data.url, { method: "PUT", headers: { "content-type": "text/plain" }, body });
    expect(wrongType.status).toBe(403);
    const wrongSize = await fetch(target.body.data.url, { method: "PUT", headers: { "content-type": "text/markdown" }, body: `${body}!` });
    expect(wrongSize.status).toBe(403);
    const tampered = await fetch(target.body.data.url.replace("a.md", "b.md"), { method: "PUT", headers: { "content-type": "text/markdown" }, body });
    expect(tampered.status).toBe(403);
    const right = await fetch(target.body.data.url, { method: "PUT", headers: { "content-type": "text/markdown" }, body });
    expect(right.status).toBe(200);
  });

  it("returns batch upload targets in request order under the namespace's prefix", async () => {
    const ns = await newNamespace(api);
    const files = [
      { fileName: "one.txt", contentType: "text/plain", fileSize: 3 },
      { fileName: "two.csv", contentType: "text/csv", fileSize: 5 },
      { fileName: "three.json", contentType: "application/json", fileSize: 2 },
    ];
    const response = await ns.call("POST", "/uploads/batch", { body: { files } });
    expect(response.status).toBe(201);
    expect(response.body.data).toHaveLength(3);
    response.body.data.forEach((target: { key: string; url: string }, index: number) => {
      expect(target.key).toMatch(new RegExp(`^namespaces/${ns.namespaceId}/uploads/[^/]+/${files[index]!.fileName.replace(".", "\\.")}$`));
      expect(target.url).toContain("X-Amz-Signature=");
    });
  });
});

describe("ingesting text and batches", () => {
  it("processes a TEXT job with config, stamping metadata on every chunk", async () => {
    const ns = await newNamespace(api);
    const text = markdownCorpus(20_000);
    const job = await ingestText(ns, text, {
      config: { chunkSize: 500, chunkingStrategy: "by_title", metadata: { team: "docs", year: 2026 } },
      externalId: "ext-1",
    });
    expect(job.config).toEqual({ chunkSize: 500, chunkingStrategy: "by_title", metadata: { team: "docs", year: 2026 } });
    expect(job.payload).toEqual({ type: "TEXT", text });
    const done = await waitForJob(ns, job.id);
    expect(done.status).toBe("COMPLETED");
    const [document] = await documentsOfJob(ns, job.id);
    expect(document.source).toEqual({ type: "TEXT", text });
    expect(document.properties).toEqual({ fileSize: Buffer.byteLength(text), mimeType: "text/plain" });
    // The document reports the config it was ingested with, whatever the payload type.
    expect(document.config).toEqual(job.config);
    const url = (await ns.call("POST", `/documents/${document.id}/chunks-download-url`)).body.data.url;
    const chunksFile: any = await (await fetch(url)).json();
    expect(chunksFile.metadata).toMatchObject({ team: "docs", year: 2026 });
    expect(chunksFile.chunks.every((chunk: { text: string }) => chunk.text.length <= 500)).toBe(true);
    // by_title: a chunk never runs on into the next section; headings only ever open a chunk.
    expect(chunksFile.chunks.some((chunk: { text: string }) => chunk.text.includes("\n## "))).toBe(false);
    expect(chunksFile.chunks.filter((chunk: { text: string }) => chunk.text.startsWith("## ")).length).toBe(text.split("## ").length - 1);
  });

  it("creates one document per BATCH item, with per-item config and names", async () => {
    const ns = await newNamespace(api);
    const key = await upload(ns, "people.csv", "text/csv", "name,role\nAda,engineer\nGrace,admiral\n");
    const created = await ns.call("POST", "/ingest-jobs", {
      body: {
        payload: {
          type: "BATCH",
          items: [
            { type: "TEXT", text: "First text document.", fileName: "first.txt" },
            { type: "MANAGED_FILE", key, config: { metadata: { source: "hr" } } },
            { type: "MANAGED_FILE", key },
          ],
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.payload.items).toHaveLength(2);
    const job = await waitForJob(ns, created.body.data.id);
    expect(job.status).toBe("COMPLETED");
    const documents = await documentsOfJob(ns, job.id);
    expect(documents.map((document) => document.name).sort()).toEqual(["first.txt", "people.csv"]);
    const csv = documents.find((document) => document.name === "people.csv");
    expect(csv.config).toEqual({ metadata: { source: "hr" } });
    expect(csv.properties.mimeType).toBe("text/csv");
  });

  it("gives every document the job's config, with a BATCH item's own fields over it", async () => {
    const ns = await newNamespace(api);
    const created = await ns.call("POST", "/ingest-jobs", {
      body: {
        config: { chunkSize: 400, metadata: { team: "docs", year: 2026 } },
        payload: {
          type: "BATCH",
          items: [
            { type: "TEXT", text: "First text document.", fileName: "first.txt" },
            { type: "TEXT", text: "Second text document.", fileName: "second.txt", config: { chunkSize: 300, metadata: { year: 2027 } } },
          ],
        },
      },
    });
    expect(created.status).toBe(201);
    const job = await waitForJob(ns, created.body.data.id);
    expect(job.status).toBe("COMPLETED");
    const documents = await documentsOfJob(ns, job.id);
    const byName = new Map<string, any>(documents.map((document: any) => [document.name, document]));
    expect(byName.get("first.txt").config).toEqual({ chunkSize: 400, metadata: { team: "docs", year: 2026 } });
    expect(byName.get("second.txt").config).toEqual({ chunkSize: 300, metadata: { team: "docs", year: 2027 } });
  });

  it("fails a document whose file cannot be parsed, with the reason, and fails its job", async () => {
    const ns = await newNamespace(api);
    const key = await upload(ns, "broken.json", "application/json", '{"a": [1, 2,');
    const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "MANAGED_FILE", key } } });
    const job = await waitForJob(ns, created.body.data.id);
    expect(job.status).toBe("FAILED");
    expect(job.error).toMatch(/1 of 1 document/);
    expect(job.failedAt).toEqual(expect.any(String));
    const [document] = await documentsOfJob(ns, job.id);
    expect(document.status).toBe("FAILED");
    expect(document.error).toMatch(/JSON/i);
    const chunks = await ns.call("POST", `/documents/${document.id}/chunks-download-url`);
    expect(chunks.status).toBe(409);
  });
});

describe("error rows", () => {
  it.each([
    [{ fileName: "a.zip", contentType: "application/zip", fileSize: 10 }, "contentType"],
    [{ fileName: "a.md", contentType: "text/markdown", fileSize: 0 }, "fileSize"],
    [{ fileName: "a.md", contentType: "text/markdown", fileSize: 300 * 1024 * 1024 }, "fileSize"],
    [{ fileName: "", contentType: "text/markdown", fileSize: 1 }, "fileName"],
    [{ fileName: "a.md", contentType: "not a type", fileSize: 1 }, "contentType"],
  ])("createUpload answers 422 naming the field for %j", async (body, field) => {
    const ns = await newNamespace(api);
    const response = await ns.call("POST", "/uploads", { body });
    expect(response.status).toBe(422);
    expect(response.body.error.message.startsWith(`${field}:`)).toBe(true);
  });

  it("createUploads refuses the whole batch for one bad file, and for 0 or 101 files", async () => {
    const ns = await newNamespace(api);
    const good = { fileName: "a.md", contentType: "text/markdown", fileSize: 1 };
    const oneBad = await ns.call("POST", "/uploads/batch", { body: { files: [good, { ...good, contentType: "image/gif", fileName: "x.gif" }] } });
    expect(oneBad.status).toBe(422);
    expect(oneBad.body.error.message).toMatch(/^files\.1\.contentType:/);
    expect((await ns.call("POST", "/uploads/batch", { body: { files: [] } })).status).toBe(422);
    expect((await ns.call("POST", "/uploads/batch", { body: { files: Array(101).fill(good) } })).status).toBe(422);
  });

  it.each([
    [{ payload: { type: "CRAWL", url: "https://example.com" } }, 422, "payload.type"],
    [{ payload: { type: "TEXT", text: "" } }, 422, "payload.text"],
    [{ payload: { type: "TEXT", text: "x" }, config: { chunkSize: 10 } }, 422, "config.chunkSize"],
    [{ payload: { type: "TEXT", text: "x" }, config: { chunkSize: 100, chunkOverlap: 50 } }, 422, "config.chunkOverlap"],
    [{ payload: { type: "TEXT", text: "x" }, config: { metadata: { documentId: "x" } } }, 422, "config.metadata"],
    [{ payload: { type: "TEXT", text: "x" }, config: { languageCode: "xx" } }, 422, "config.languageCode"],
    [{ payload: { type: "FILE", fileUrl: "ftp://example.com/a.txt" } }, 422, "payload.fileUrl"],
    [{ payload: { type: "FILE", fileUrl: "http://169.254.169.254/latest/meta-data" } }, 400, "payload.fileUrl"],
    [{ payload: { type: "FILE", fileUrl: "http://localhost:8080/a.txt" } }, 400, "payload.fileUrl"],
    [{ payload: { type: "MANAGED_FILE", key: "namespaces/ns_other/uploads/x/a.md" } }, 400, "payload.key"],
    [{ payload: { type: "BATCH", items: [{ type: "TEXT", text: "ok" }, { type: "MANAGED_FILE", key: "nope" }] } }, 400, "payload.items.1.key"],
  ])("creating a job with %j answers %i naming %s", async (body, status, field) => {
    const ns = await newNamespace(api);
    const response = await ns.call("POST", "/ingest-jobs", { body });
    expect(response.status).toBe(status);
    expect(response.body.error.message.startsWith(`${field}:`), response.body.error.message).toBe(true);
  });

  it("answers 409 for a second job with the same externalId in the namespace", async () => {
    const ns = await newNamespace(api);
    await ingestText(ns, "one", { externalId: "same" });
    const again = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "TEXT", text: "two" }, externalId: "same" } });
    expect(again.status).toBe(409);
    const other = await newNamespace(api);
    expect((await other.call("POST", "/ingest-jobs", { body: { payload: { type: "TEXT", text: "two" }, externalId: "same" } })).status).toBe(201);
  });

  it("answers 404 for unknown or foreign ids and 400 for malformed ones", async () => {
    const ns = await newNamespace(api);
    const other = await newNamespace(api);
    const job = await ingestText(other, "someone else's text");
    await waitForJob(other, job.id);
    const [document] = await documentsOfJob(other, job.id);
    expect((await ns.call("GET", "/ingest-jobs/job_0000000000000000000000")).status).toBe(404);
    expect((await ns.call("GET", `/ingest-jobs/${job.id}`)).status).toBe(404);
    expect((await ns.call("GET", `/documents/${document.id}`)).status).toBe(404);
    expect((await ns.call("POST", `/documents/${document.id}/chunks-download-url`)).status).toBe(404);
    expect((await ns.call("GET", "/ingest-jobs/doc_123")).status).toBe(400);
    expect((await ns.call("GET", "/documents/job_123")).status).toBe(400);
  });

  it("createFileDownloadUrl answers 400 for a document whose source is not MANAGED_FILE", async () => {
    const ns = await newNamespace(api);
    const job = await ingestText(ns, "plain text");
    await waitForJob(ns, job.id);
    const [document] = await documentsOfJob(ns, job.id);
    const response = await ns.call("POST", `/documents/${document.id}/file-download-url`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("bad_request");
  });

  it("createChunksDownloadUrl answers 409 while the document is not COMPLETED", async () => {
    const ns = await newNamespace(api);
    await api.stack().stopWorkers();
    try {
      const job = await ingestText(ns, "waiting text");
      // Workers are stopped, so the job's documents do not exist yet; run only the job step by hand.
      const { startJobRun } = await import("../../functions/shared/workflows/ingestion/run-job.ts");
      const stored = (await ns.call("GET", `/ingest-jobs/${job.id}`)).body.data;
      expect(stored.status).toBe("QUEUED");
      const { getIngestJob } = await import("../../functions/shared/db/ingest-jobs.ts");
      const record = await getIngestJob(job.id);
      await startJobRun(job.id, record!.runId);
      const [document] = await documentsOfJob(ns, job.id);
      expect(document.status).toBe("QUEUED");
      const response = await ns.call("POST", `/documents/${document.id}/chunks-download-url`);
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe("conflict");
    } finally {
      api.stack().startWorkers();
    }
  });

  it("answers 422 for list queries out of bounds and 400 for a forged cursor", async () => {
    const ns = await newNamespace(api);
    for (const query of ["perPage=0", "perPage=101", "perPage=2.5", "perPage=abc", "order=up", "orderBy=name", "statuses=DONE", "cursorDirection=sideways"]) {
      const response = await ns.call("GET", `/ingest-jobs?${query}`);
      expect(response.status, query).toBe(422);
    }
    expect((await ns.call("GET", "/ingest-jobs?cursor=abc.def")).status).toBe(400);
    expect((await ns.call("GET", "/documents?ingestJobId=nope")).status).toBe(422);
  });
});
