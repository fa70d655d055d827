import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { WORKERS } from "../../lib/workers.ts";
import { LOCAL_VISIBILITY_MARGIN_SECONDS } from "../../local/resources.ts";
import { afterEach, describe, expect, it } from "vitest";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import { setFaultInjector } from "../../functions/shared/platform/fault-points.ts";
import { docxBomb, epubRepeatBomb, pdfImageBomb, pdfManyImagesBomb, pdfStreamBomb, pngBomb, pptxRepeatBomb, xlsxBomb } from "../fixtures/bombs.ts";
import { docxFile } from "../fixtures/documents.ts";
import { chunksOf, documentsOfJob, newNamespace, upload, waitForJob } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

/**
 * Issue 21 §1 end to end on the local stack: the bombs of the table and an ordinary
 * document, uploaded and ingested as one job, so the worker takes them from the queue together
 * (batches of five). Each bomb ends FAILED with its reason or, where it repeats a part, completes
 * having read it once; the ordinary document completes; nothing reaches the dead-letter queue; and
 * the process that runs the gateway and the workers never holds more than the function's memory.
 */

// The queues' own visibility timeout, not the suite's short one: this file also checks it.
const api = useLocalStack({ visibilityTimeoutSeconds: undefined });

const FUNCTION_MEMORY_BYTES = 1769 * 1024 * 1024;
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

async function ingestDeadLetters(): Promise<number> {
  const stack = api.stack();
  const attributes = await stack.clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: stack.resources.queues.ingest.dlqUrl, AttributeNames: ["ApproximateNumberOfMessages"] }),
  );
  return Number(attributes.Attributes?.ApproximateNumberOfMessages ?? 0);
}

describe("the local queues", () => {
  it("keep a message invisible for as long as the worker that takes it may run (not 30 s against 300 s)", async () => {
    for (const worker of WORKERS) {
      const attributes = await api.stack().clients.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: api.stack().resources.queues[worker.queue].url, AttributeNames: ["VisibilityTimeout"] }),
      );
      expect(Number(attributes.Attributes?.VisibilityTimeout), worker.id).toBe(worker.timeoutSeconds + LOCAL_VISIBILITY_MARGIN_SECONDS);
    }
  });
});

describe("decompression and amplification bombs in one job with an ordinary document", () => {
  it("each bomb ends with its reason, the ordinary document completes and the process stays within the function's memory", async () => {
    const ns = await newNamespace(api);
    const before = await ingestDeadLetters();
    const files: [string, string, Uint8Array][] = [
      ["sheet.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", xlsxBomb(200)],
      ["report.docx", DOCX, await docxBomb(450)],
      ["handbook.docx", DOCX, await docxFile()],
      ["stream.pdf", "application/pdf", pdfStreamBomb(600)],
      ["scan.pdf", "application/pdf", pdfImageBomb(16000)],
      // Past every budget: eight 25-megapixel images on one page, stopped by the memory watch.
      ["images.pdf", "application/pdf", pdfManyImagesBomb(8, 5000)],
      ["huge.png", "image/png", pngBomb(30000)],
      ["book.epub", "application/epub+zip", epubRepeatBomb(9999)],
      ["deck.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", await pptxRepeatBomb(9999)],
    ];
    const items = [];
    for (const [fileName, contentType, bytes] of files) items.push({ type: "MANAGED_FILE", key: await upload(ns, fileName, contentType, bytes), fileName });
    const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "BATCH", items } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitForJob(ns, created.body.data.id);
    const documents = Object.fromEntries((await documentsOfJob(ns, created.body.data.id)).map((document) => [document.name, document]));

    const failed = (name: string) => {
      expect(documents[name].status, JSON.stringify(documents[name])).toBe("FAILED");
      return documents[name].error as string;
    };
    expect(failed("sheet.xlsx")).toMatch(/too large when decompressed: its part xl\/worksheets\/sheet1\.xml inflates to more than 32 MiB/);
    expect(failed("report.docx")).toMatch(/too large when decompressed: its part word\/document\.xml inflates to more than 6 MiB/);
    expect(failed("stream.pdf")).toMatch(/too large when decompressed: one of its streams inflates to more than 32 MiB/);
    expect(failed("scan.pdf")).toMatch(/an image of 16000×16000 pixels was not read: it has more than the 32 megapixels that can be read by OCR/);
    expect(failed("images.pdf")).toMatch(/needed more memory than the worker has while it was read \(\d+ MB in use; too large when decompressed/);
    expect(failed("huge.png")).toMatch(/the PNG image is 30000×30000 pixels \(900 megapixels\), more than the 32 megapixels/);
    for (const name of ["handbook.docx", "book.epub", "deck.pptx"]) expect(documents[name].status, JSON.stringify(documents[name])).toBe("COMPLETED");
    expect(documents["deck.pptx"].totalPages).toBe(1);
    expect((await chunksOf(ns, documents["handbook.docx"].id)).chunks.map((chunk) => chunk.text).join("\n")).toContain("Employee Handbook");

    expect(await ingestDeadLetters()).toBe(before);
    expect(process.resourceUsage().maxRSS * 1024).toBeLessThan(FUNCTION_MEMORY_BYTES);
  });
});

describe("the local gateway while a document is parsed", () => {
  it("answers while the worker parses a dense Word file, in the same process", async () => {
    const ns = await newNamespace(api);
    // Within the Word budget; mammoth parses it synchronously for seconds.
    const key = await upload(ns, "dense.docx", DOCX, await docxBomb(5));
    const reading = new Promise<void>((resolve) => setFaultInjector(async (point) => void (point === "extraction:reading" && resolve())));
    const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "MANAGED_FILE", key, fileName: "dense.docx" } } });
    expect(created.status).toBe(201);
    // Asked once the extraction thread reads the file: parsed in the gateway's thread, this request
    // would wait until the document had moved on.
    await reading;
    setFaultInjector(null);
    const [document] = await documentsOfJob(ns, created.body.data.id);
    const answered = await ns.call("GET", `/documents/${document.id}`);
    expect(answered.status).toBe(200);
    expect(answered.body.data.status).toBe("PRE_PROCESSING");
    const done = await waitForJob(ns, created.body.data.id);
    expect(done.status).toBe("COMPLETED");
  });
});

describe("a document that defeats the budgets", () => {
  afterEach(() => {
    delete process.env[ENV.extractionHeapMb];
  });

  it("fails alone when its extraction thread runs out of heap; the ordinary document of the same job completes", async () => {
    // A heap cap low enough that a Word file within the budget outgrows it, as a bomb the budgets missed would.
    process.env[ENV.extractionHeapMb] = "96";
    const ns = await newNamespace(api);
    const before = await ingestDeadLetters();
    const items = [
      { type: "MANAGED_FILE", key: await upload(ns, "dense.docx", DOCX, await docxBomb(5)), fileName: "dense.docx" },
      { type: "MANAGED_FILE", key: await upload(ns, "handbook.docx", DOCX, await docxFile()), fileName: "handbook.docx" },
    ];
    const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "BATCH", items } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitForJob(ns, created.body.data.id);
    const documents = Object.fromEntries((await documentsOfJob(ns, created.body.data.id)).map((document) => [document.name, document]));
    expect(documents["dense.docx"]).toMatchObject({ status: "FAILED" });
    expect(documents["dense.docx"].error).toMatch(/needs more than the 96 MB of memory one document may use while it is read \(too large when decompressed/);
    expect(documents["handbook.docx"], JSON.stringify(documents["handbook.docx"])).toMatchObject({ status: "COMPLETED" });
    expect(await ingestDeadLetters()).toBe(before);
  });
});
