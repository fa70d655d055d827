import { request as httpRequest, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { extractIsolated, shutdownExtractionThreads } from "../../functions/shared/extraction/isolation.ts";
import { DocumentExtractionError, extractionLimits } from "../../functions/shared/extraction/limits.ts";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import { setFaultInjector } from "../../functions/shared/platform/fault-points.ts";
import { docxBomb, pdfManyImagesBomb } from "../fixtures/bombs.ts";
import { docxFile } from "../fixtures/documents.ts";
import { extract, refusal } from "../support/isolated-extraction.ts";

/**
 * Issue 21 §1, the last line of defence: a file that defeats the format budgets
 * (extraction-bombs.test.ts) is stopped by the extraction thread's heap cap, the process's memory
 * limit or the time limit, without harming the process or the next document. Its own file so that
 * these seconds of parsing run beside the bombs rather than after them.
 */

afterEach(() => {
  delete process.env[ENV.extractionHeapMb];
  delete process.env[ENV.extractionRssLimitMb];
});
afterAll(() => shutdownExtractionThreads());

describe("the extraction thread", () => {
  it("refuses a document whose extracted text is larger than one document may have", async () => {
    const error = await extractIsolated("docx", await docxFile(), { limits: extractionLimits({ maxCharacters: 100 }) }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DocumentExtractionError);
    expect((error as Error).message).toMatch(/^the Word document file holds \d+ characters of text, more than the 100 one document may have$/);
  });

  it("a document that outgrows the thread's heap fails with the reason; the process and the next document carry on", async () => {
    process.env[ENV.extractionHeapMb] = "64";
    // Within the Word budget, but mammoth needs several hundred MB for it.
    const message = await refusal("docx", await docxBomb(5));
    expect(message).toMatch(/^the Word document file needs more than the 64 MB of memory one document may use while it is read \(too large when decompressed/);
    delete process.env[ENV.extractionHeapMb];
    expect((await extract("docx", await docxFile())).text).toContain("Employee Handbook");
  });

  it("a document whose memory grows outside the heap (decoded images) is stopped at the process's memory limit", async () => {
    // Eight images of 25 megapixels on one page, each within the pixel budget, decode to 600 MB of
    // typed arrays that no heap cap sees (2.2 GB of RSS for 8 of them with OCR, before this limit).
    const bytes = pdfManyImagesBomb(8, 5000);
    const limitMb = Math.round(process.memoryUsage.rss() / 1048576) + 300;
    process.env[ENV.extractionRssLimitMb] = String(limitMb);
    const message = await refusal("pdf", bytes);
    expect(message).toMatch(/^the PDF file needed more memory than the worker has while it was read \(\d+ MB in use; too large when decompressed/);
    // The next document is read under the same limit: the stopped thread's memory is not counted against it.
    expect((await extract("docx", await docxFile())).text).toContain("Employee Handbook");
  });

  it("the process keeps answering requests while a document is parsed", async () => {
    const server = createServer((_request, response) => response.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      let settled = false;
      // Within the budget: mammoth parses it synchronously for seconds.
      const extraction = extract("docx", await docxBomb(5)).then(
        () => (settled = true),
        () => (settled = true),
      );
      // Asked once the thread reads the file; parsed in this thread, the request would wait for the end.
      const answeredWhileParsing = await new Promise<boolean>((resolve, reject) => {
        setFaultInjector(async (point) => {
          if (point !== "extraction:reading") return;
          httpRequest({ host: "127.0.0.1", port: (server.address() as AddressInfo).port }, (response) => {
            response.resume();
            response.on("end", () => resolve(!settled));
          })
            .on("error", reject)
            .end();
        });
      });
      await extraction;
      expect(answeredWhileParsing).toBe(true);
    } finally {
      setFaultInjector(null);
      server.close();
    }
  });

  it("a document still being read at its deadline is stopped and fails with the reason", async () => {
    // A warm thread (mammoth loaded) opens the file well within the deadline, which then passes
    // while mammoth parses for seconds, checking no clock: only the thread's limit can stop it.
    await extract("docx", await docxFile());
    const bytes = await docxBomb(5);
    const error = await extract("docx", bytes, Date.now() + 1_500, 0).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toEqual(new DocumentExtractionError("the Word document file took too long to parse (the time limit for one document was reached)"));
    expect((await extract("docx", await docxFile())).text).toContain("Employee Handbook");
  });
});
