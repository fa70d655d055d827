import { createServer, type Server } from "node:http";
import { ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { afterEach, describe, expect, it } from "vitest";
import type { ChunksFile } from "../../functions/shared/domain/chunks.ts";
import { getDocument } from "../../functions/shared/db/documents.ts";
import { setFaultInjector } from "../../functions/shared/platform/fault-points.ts";
import { documentPrefix } from "../../functions/shared/storage/object-keys.ts";
import { textPdf } from "../fixtures/documents.ts";
import { chunksOf, ingestAndWait, newNamespace, upload } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

// Three pages per step: a ten-page PDF is read in four steps. Private URLs are allowed so a FILE
// payload can be served from this machine. The first step starts an extraction thread, which
// unbundled (TypeScript through tsx) takes about two seconds: a longer visibility timeout than the
// suite's 2 s keeps that step from being delivered twice, which the step counts below would see.
const api = useLocalStack({ env: { INGEST_STEP_MAX_PAGES: "3", ALLOW_PRIVATE_FILE_URLS: "true" }, visibilityTimeoutSeconds: 5 });

afterEach(() => setFaultInjector(null));

const PDF = "application/pdf";

async function keysUnder(prefix: string): Promise<string[]> {
  const stack = api.stack();
  const listed = await stack.clients.s3.send(new ListObjectsV2Command({ Bucket: stack.resources.bucketName, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key!);
}

/** Counts the steps that staged a page range, by the fault point each one passes. */
function countStagedRanges(): () => number {
  let staged = 0;
  setFaultInjector((point) => {
    if (point === "document:pages-staged") staged += 1;
  });
  return () => staged;
}

function expectEveryPageInPlace(chunks: ChunksFile, pages: number): void {
  for (let page = 1; page <= pages; page++) {
    const onPage = chunks.chunks.filter((chunk) => chunk.text.includes(`marker-${page}.`));
    expect(onPage.length, `page ${page}`).toBeGreaterThan(0);
    for (const chunk of onPage) expect(chunk.metadata.page_number, `page ${page}`).toBe(page);
  }
}

describe("a long PDF read a page range per worker step", () => {
  it("completes with every page once, in order, numbered, and its running headers removed", async () => {
    const ns = await newNamespace(api);
    const staged = countStagedRanges();
    const bytes = await textPdf({ pages: 10, header: "Northwind Handbook", pageNumbers: true, paragraphsPerPage: 2 });
    const key = await upload(ns, "handbook.pdf", PDF, bytes);
    const { job, document } = await ingestAndWait(ns, { type: "MANAGED_FILE", key, fileName: "handbook.pdf" }, { chunkSize: 300 });
    expect(job.status, JSON.stringify(document)).toBe("COMPLETED");
    expect(document).toMatchObject({ status: "COMPLETED", totalPages: 10, properties: { mimeType: PDF, fileSize: bytes.byteLength } });
    // Pages 1–3, 4–6 and 7–9 were staged; page 10 was read by the step that joined them.
    expect(staged()).toBe(3);
    const chunks = await chunksOf(ns, document.id);
    const text = chunks.chunks.map((chunk) => chunk.text).join("\n");
    expect(text).not.toContain("Northwind Handbook");
    expect(text).not.toMatch(/Page \d+ of 10/);
    expectEveryPageInPlace(chunks, 10);
    const markers = [...text.matchAll(/marker-(\d+)\./g)].map((match) => Number(match[1]));
    expect(markers).toEqual([...markers].sort((a, b) => a - b));
    // The staged ranges go with the run: only the published chunks file is left.
    expect(await keysUnder(documentPrefix(ns.namespaceId, document.id))).toEqual([`${documentPrefix(ns.namespaceId, document.id)}chunks.json`]);
    expect((await getDocument(document.id))?.extraction).toBeNull();
  });

  it("reads the pages of a fetched file from one copy, and removes the copy when the run ends", async () => {
    const bytes = await textPdf({ pages: 7, pageNumbers: true });
    let fetches = 0;
    const server: Server = createServer((_request, response) => {
      fetches += 1;
      response.writeHead(200, { "content-type": PDF });
      response.end(bytes);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    try {
      const ns = await newNamespace(api);
      const fileUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/guide.pdf`;
      const { document } = await ingestAndWait(ns, { type: "FILE", fileUrl }, { chunkSize: 300 });
      expect(document, document.error ?? "").toMatchObject({ status: "COMPLETED", totalPages: 7 });
      expect(fetches).toBe(1);
      expectEveryPageInPlace(await chunksOf(ns, document.id), 7);
      expect(await keysUnder(documentPrefix(ns.namespaceId, document.id))).toEqual([`${documentPrefix(ns.namespaceId, document.id)}chunks.json`]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("resumes after a crash between ranges without reading a page twice", async () => {
    const ns = await newNamespace(api);
    let crashes = 0;
    setFaultInjector((point) => {
      if (point === "document:pages-staged" && crashes < 2) {
        crashes += 1;
        throw new Error("simulated crash after staging a page range");
      }
    });
    const key = await upload(ns, "handbook.pdf", PDF, await textPdf({ pages: 8, pageNumbers: true, paragraphsPerPage: 1 }));
    const { document } = await ingestAndWait(ns, { type: "MANAGED_FILE", key, fileName: "handbook.pdf" });
    expect(crashes).toBe(2);
    expect(document).toMatchObject({ status: "COMPLETED", totalPages: 8 });
    const text = (await chunksOf(ns, document.id)).chunks.map((chunk) => chunk.text).join("\n");
    for (let page = 1; page <= 8; page++) expect(text.match(new RegExp(`marker-${page}\\.`, "g")), `page ${page}`).toHaveLength(1);
  });

  it("fails with the reason when the upload is replaced between two steps, rather than mixing two files", async () => {
    const ns = await newNamespace(api);
    const key = await upload(ns, "handbook.pdf", PDF, await textPdf({ pages: 9, pageNumbers: true }));
    const stack = api.stack();
    let replaced = false;
    setFaultInjector(async (point) => {
      if (point !== "document:pages-staged" || replaced) return;
      replaced = true;
      const other = await textPdf({ pages: 9, header: "Another file", pageNumbers: true });
      await stack.clients.s3.send(new PutObjectCommand({ Bucket: stack.resources.bucketName, Key: key, Body: other, ContentType: PDF }));
    });
    const { job, document } = await ingestAndWait(ns, { type: "MANAGED_FILE", key, fileName: "handbook.pdf" });
    expect(replaced).toBe(true);
    expect(job.status).toBe("FAILED");
    expect(document.status).toBe("FAILED");
    expect(document.error).toMatch(/the file changed while its pages were being read \(after page 3\); ingest it again/);
  });
});

describe("upload limits per format", () => {
  it("signs a 200 MiB PDF upload and refuses a text file over 40 MiB, naming the limit", async () => {
    const ns = await newNamespace(api);
    const pdf = await ns.call("POST", "/uploads", { body: { fileName: "scan.pdf", contentType: PDF, fileSize: 200 * 1024 * 1024 } });
    expect(pdf.status, JSON.stringify(pdf.body)).toBe(201);
    const tooLargePdf = await ns.call("POST", "/uploads", { body: { fileName: "scan.pdf", contentType: PDF, fileSize: 200 * 1024 * 1024 + 1 } });
    expect(tooLargePdf.status).toBe(422);
    expect(tooLargePdf.body.error.message).toContain("fileSize: must be at most 209715200 bytes for PDF files");
    const text = await ns.call("POST", "/uploads", { body: { fileName: "notes.md", contentType: "text/markdown", fileSize: 40 * 1024 * 1024 + 1 } });
    expect(text.status).toBe(422);
    expect(text.body.error.message).toContain("fileSize: must be at most 41943040 bytes for Markdown files");
  });
});
