import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import type { ChunksFile } from "../../functions/shared/domain/chunks.ts";
import {
  corruptPdf,
  docxFile,
  emlFile,
  encryptedPdf,
  epubFile,
  IMAGE_LINES,
  jpegImage,
  odtFile,
  png,
  pptxFile,
  rtfFile,
  SCANNED_LINES,
  scannedPdf,
  textPdf,
  truncatedPdf,
  xlsxFile,
  zipBomb,
} from "../fixtures/documents.ts";
import { FIDELITY_FIXTURES } from "../fixtures/fidelity-sources.ts";
import { chunksOf, ingestAndWait, newNamespace, type TestNamespace, upload } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack();

const PDF = "application/pdf";
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** Uploads the file through createUpload, ingests it as MANAGED_FILE and waits for the job to end. */
async function ingestFile(ns: TestNamespace, fileName: string, contentType: string, bytes: Uint8Array, config?: Record<string, unknown>) {
  const key = await upload(ns, fileName, contentType, bytes);
  return ingestAndWait(ns, { type: "MANAGED_FILE", key, fileName }, config);
}

const wholeText = (chunks: ChunksFile) => chunks.chunks.map((chunk) => chunk.text).join("\n");

async function searchIds(ns: TestNamespace, query: string): Promise<string[]> {
  const response = await ns.call("POST", "/search", { body: { query, mode: "keyword", topK: 5 } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body.data as { metadata: { documentId: string } }[]).map((result) => result.metadata.documentId);
}

async function ingestDeadLetters(): Promise<number> {
  const stack = api.stack();
  const attributes = await stack.clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: stack.resources.queues.ingest.dlqUrl, AttributeNames: ["ApproximateNumberOfMessages"] }),
  );
  return Number(attributes.Attributes?.ApproximateNumberOfMessages ?? 0);
}

describe("PDF uploads", () => {
  it("complete with the page count, a page number on every chunk and running headers and footers removed", async () => {
    const ns = await newNamespace(api);
    const bytes = await textPdf({ pages: 6, header: "Northwind Handbook", pageNumbers: true, paragraphsPerPage: 2 });
    const { job, document } = await ingestFile(ns, "handbook.pdf", PDF, bytes, { chunkSize: 300 });
    expect(job.status, JSON.stringify(document)).toBe("COMPLETED");
    expect(document).toMatchObject({ status: "COMPLETED", totalPages: 6, properties: { mimeType: PDF, fileSize: bytes.byteLength } });
    const chunks = await chunksOf(ns, document.id);
    expect(wholeText(chunks)).not.toContain("Northwind Handbook");
    expect(wholeText(chunks)).not.toMatch(/Page \d of 6/);
    for (let page = 1; page <= 6; page++) {
      const onPage = chunks.chunks.filter((chunk) => chunk.text.includes(`marker-${page}.`));
      expect(onPage.length, `page ${page}`).toBeGreaterThan(0);
      for (const chunk of onPage) expect(chunk.metadata.page_number).toBe(page);
    }
  });

  it("keep the running header when keepPageheaderInOutput is true", async () => {
    const ns = await newNamespace(api);
    const bytes = await textPdf({ pages: 4, header: "Northwind Handbook", pageNumbers: true });
    const { document } = await ingestFile(ns, "handbook.pdf", PDF, bytes, { keepPageheaderInOutput: true });
    expect(document.status).toBe("COMPLETED");
    const text = wholeText(await chunksOf(ns, document.id));
    expect(text.match(/Northwind Handbook/g)).toHaveLength(4);
    expect(text).not.toMatch(/Page \d of 4/);
  });

  it("OCR a scanned page, and search finds text that exists only in its image", async () => {
    const ns = await newNamespace(api);
    // Chunks small enough that no chunk spans both pages: a chunk's page is the one it starts on.
    const { document } = await ingestFile(ns, "scan.pdf", PDF, await scannedPdf(), { chunkSize: 80 });
    expect(document).toMatchObject({ status: "COMPLETED", totalPages: 2 });
    const chunks = await chunksOf(ns, document.id);
    const scanned = chunks.chunks.filter((chunk) => chunk.text.includes(SCANNED_LINES[0]!));
    expect(scanned.map((chunk) => chunk.metadata.page_number)).toEqual([2]);
    expect(chunks.chunks.find((chunk) => chunk.text.includes("northwind account"))?.metadata.page_number).toBe(1);
    expect(await searchIds(ns, "scanned invoice thirty days")).toContain(document.id);
  });

  it("with strategy fast, skip OCR and say so in the document's notes", async () => {
    const ns = await newNamespace(api);
    const { document } = await ingestFile(ns, "scan.pdf", PDF, await scannedPdf(), { strategy: "fast" });
    expect(document.status).toBe("COMPLETED");
    expect(wholeText(await chunksOf(ns, document.id))).not.toContain(SCANNED_LINES[0]);
    expect(document.properties.notes).toEqual([expect.stringMatching(/^page 2: /)]);
  });

  for (const [name, make, reason] of [
    ["an encrypted", encryptedPdf, /password|encrypt/i],
    ["a corrupt", async () => corruptPdf(), /PDF/],
    ["a truncated", truncatedPdf, /PDF/],
  ] as const) {
    it(`end FAILED with the reason for ${name} file, at once and without a dead letter`, async () => {
      const ns = await newNamespace(api);
      const before = await ingestDeadLetters();
      const { job, document } = await ingestFile(ns, "broken.pdf", PDF, await make());
      expect(job.status).toBe("FAILED");
      expect(document.status).toBe("FAILED");
      expect(document.error).toMatch(reason);
      expect(await ingestDeadLetters()).toBe(before);
    });
  }
});

describe("Office documents", () => {
  it("a Word file completes with its table as Markdown, and search finds a table cell", async () => {
    const ns = await newNamespace(api);
    const { document } = await ingestFile(ns, "handbook.docx", DOCX, await docxFile());
    expect(document).toMatchObject({ status: "COMPLETED", properties: { mimeType: DOCX } });
    const text = wholeText(await chunksOf(ns, document.id));
    expect(text).toContain("# Employee Handbook");
    expect(text).toContain("| Oslo | Erik Berg | 17 |");
    expect(await searchIds(ns, "Erik Berg")).toContain(document.id);
  });

  it("a PowerPoint deck gives each chunk its slide, and search finds a speaker note", async () => {
    const ns = await newNamespace(api);
    const { document } = await ingestFile(ns, "review.pptx", PPTX, await pptxFile(3), { chunkSize: 120, chunkingStrategy: "by_title" });
    expect(document.status).toBe("COMPLETED");
    const chunks = await chunksOf(ns, document.id);
    // A chunk belongs to the slide it starts on; every slide's title opens a chunk of that slide.
    for (let slide = 1; slide <= 3; slide++) {
      const opening = chunks.chunks.filter((chunk) => chunk.text.startsWith(`## Quarterly Review ${slide}`));
      expect(opening.map((chunk) => chunk.metadata.slide)).toEqual([slide]);
    }
    expect(new Set(chunks.chunks.map((chunk) => chunk.metadata.slide))).toEqual(new Set([1, 2, 3]));
    expect(await searchIds(ns, "note-2 thank sales team")).toContain(document.id);
  });

  it("a workbook gives each chunk its sheet, tables as Markdown", async () => {
    const ns = await newNamespace(api);
    const { document } = await ingestFile(ns, "accounts.xlsx", XLSX, xlsxFile(3), { chunkSize: 100 });
    expect(document.status).toBe("COMPLETED");
    const chunks = await chunksOf(ns, document.id);
    const totals = chunks.chunks.filter((chunk) => chunk.text.includes("| Open invoices | 12 |"));
    expect(totals.map((chunk) => chunk.metadata.sheet)).toEqual(["Totals"]);
    expect(chunks.chunks.filter((chunk) => chunk.text.includes("Customer 1")).map((chunk) => chunk.metadata.sheet)).toEqual(["Customers"]);
  });

  it("a long OpenDocument sheet: every chunk after a sheet's first repeats its name and header row and says so; the type is the file's own", async () => {
    const ns = await newNamespace(api);
    const bytes = new Uint8Array(readFileSync(join(FIDELITY_FIXTURES, "codes.ods")));
    const { document } = await ingestFile(ns, "codes.ods", "application/vnd.oasis.opendocument.spreadsheet", bytes, { chunkSize: 600 });
    expect(document).toMatchObject({ status: "COMPLETED", properties: { mimeType: "application/vnd.oasis.opendocument.spreadsheet" } });
    const chunks = await chunksOf(ns, document.id);
    const continuing = chunks.chunks.filter((chunk) => chunk.metadata.repeated_header !== undefined);
    expect(continuing.length).toBeGreaterThan(20);
    for (const chunk of continuing) {
      const header = chunk.metadata.sheet === "Countries" ? "## Countries\n\n| Alpha-2 | Alpha-3 | Numeric | Name |\n| --- | --- | --- | --- |\n" : "## Languages\n\n| Alpha-3 | Alpha-2 | Name |\n| --- | --- | --- |\n";
      expect(chunk.text.startsWith(header), chunk.text.slice(0, 120)).toBe(true);
      expect(chunk.metadata.repeated_header).toBe(header.length);
      expect(chunk.text.length).toBeLessThanOrEqual(600);
    }
    // Without their repeated headers the chunks still rebuild the extracted text exactly.
    const rebuilt = chunks.chunks.map((chunk) => chunk.text.slice(chunk.metadata.repeated_header ?? 0)).join("");
    expect(rebuilt.match(/^\| [A-Za-z]{2,3} \|/gm)?.length).toBeGreaterThan(700);
    expect(rebuilt.match(/^\| --- \|/gm)).toHaveLength(2);
  });

  it("a zip bomb posing as a Word file ends FAILED with the reason, without a dead letter", async () => {
    const ns = await newNamespace(api);
    const before = await ingestDeadLetters();
    const { document } = await ingestFile(ns, "bomb.docx", DOCX, zipBomb());
    expect(document.status).toBe("FAILED");
    expect(document.error).toMatch(/inflate|decompress|MiB|GiB/i);
    expect(await ingestDeadLetters()).toBe(before);
  });
});

describe("other documents", () => {
  for (const [fileName, contentType, make, expected] of [
    ["notes.odt", "application/vnd.oasis.opendocument.text", async () => odtFile(), /\S/],
    ["book.epub", "application/epub+zip", async () => epubFile(2, 2), /\S/],
    ["memo.rtf", "application/rtf", async () => rtfFile(), /\S/],
    ["message.eml", "message/rfc822", async () => emlFile(), /^# /m],
  ] as const) {
    it(`${fileName} completes with its text`, async () => {
      const ns = await newNamespace(api);
      const { document } = await ingestFile(ns, fileName, contentType, await make());
      expect(document, JSON.stringify(document)).toMatchObject({ status: "COMPLETED", properties: { mimeType: contentType } });
      expect(wholeText(await chunksOf(ns, document.id))).toMatch(expected);
    });
  }

  it("a PDF with no pages fails saying so", async () => {
    const ns = await newNamespace(api);
    const { document } = await ingestFile(ns, "empty.pdf", PDF, new Uint8Array(readFileSync(join(FIDELITY_FIXTURES, "empty.pdf"))));
    expect(document).toMatchObject({ status: "FAILED", error: expect.stringContaining("the PDF has no pages") });
  });

  it("a JPEG sent as image/png is read, and reported as the JPEG it is", async () => {
    const ns = await newNamespace(api);
    const { document } = await ingestFile(ns, "scan.png", "image/png", jpegImage());
    expect(document).toMatchObject({ status: "COMPLETED", properties: { mimeType: "image/jpeg" } });
  });

  it("an image is read through OCR, and search finds its text", async () => {
    const ns = await newNamespace(api);
    const { document } = await ingestFile(ns, "report.png", "image/png", png());
    expect(document).toMatchObject({ status: "COMPLETED", properties: { mimeType: "image/png" } });
    expect(wholeText(await chunksOf(ns, document.id))).toContain(IMAGE_LINES[0]);
    expect(await searchIds(ns, "quarterly revenue report")).toContain(document.id);
  });
});
