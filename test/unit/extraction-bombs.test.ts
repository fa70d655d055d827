import { request as httpRequest, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { extractIsolated, shutdownExtractionThreads } from "../../functions/shared/extraction/isolation.ts";
import { imageDimensions } from "../../functions/shared/extraction/image-size.ts";
import { CONTAINER_BUDGETS, DocumentExtractionError, extractionLimits, MAX_IMAGE_PIXELS } from "../../functions/shared/extraction/limits.ts";
import type { DocumentFormatId } from "../../functions/shared/domain/catalogs/document-formats.ts";
import { unzip } from "../../functions/shared/extraction/zip.ts";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import {
  deflatedRepeat,
  docxBomb,
  epubRepeatBomb,
  pdfImageBomb,
  pdfManyImagesBomb,
  pdfStreamBomb,
  pngBomb,
  pptxRepeatBomb,
  xlsxBomb,
  xlsxRepeatBomb,
} from "../fixtures/bombs.ts";
import { docxFile, jpegImage, png, tiffImage, webpImage } from "../fixtures/documents.ts";

/**
 * Issue 21 §1: each bomb of the table, read as the ingest worker reads it (in an
 * extraction thread), is refused with its reason, or read once where it repeats a part, before
 * any large allocation; a file that defeats the budgets is stopped by the thread's heap cap and
 * time limit without harming the process. Peak RSS is the process's own high-water mark, which
 * counts the extraction threads (they share the process).
 */

const MiB = 1024 * 1024;
const FUNCTION_MEMORY_BYTES = 1769 * 1024 * 1024;

afterEach(() => {
  delete process.env[ENV.extractionHeapMb];
  delete process.env[ENV.extractionRssLimitMb];
});
afterAll(() => shutdownExtractionThreads());

async function extract(format: DocumentFormatId, bytes: Uint8Array, deadlineMs = Date.now() + 120_000, graceMs?: number) {
  return extractIsolated(format, bytes, { limits: extractionLimits({ deadlineMs }) }, { graceMs });
}

async function refusal(format: DocumentFormatId, bytes: Uint8Array): Promise<string> {
  const error = await extract(format, bytes).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DocumentExtractionError);
  return (error as Error).message;
}

function peakRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}

describe("the bomb fixtures", () => {
  it("inflate to what they say", () => {
    const repeated = deflatedRepeat("<a>", "<b>xy</b>", 200_000, "</a>");
    const archive = unzip(xlsxBomb(4), { label: "test", limits: extractionLimits() });
    expect(archive.files.get("xl/worksheets/sheet1.xml")!.length).toBeGreaterThan(3.9 * MiB);
    expect(repeated.size).toBeGreaterThan(190_000);
  });

  it("are small files", async () => {
    expect(xlsxBomb().length).toBeLessThan(2 * MiB);
    expect((await docxBomb()).length).toBeLessThan(5 * MiB);
    expect(pdfStreamBomb().length).toBeLessThan(6 * MiB);
    expect(pdfImageBomb().length).toBeLessThan(8 * MiB);
    expect(pngBomb().length).toBeLessThan(2 * MiB);
    expect(epubRepeatBomb().length).toBeLessThan(100_000);
    expect((await pptxRepeatBomb()).length).toBeLessThan(100_000);
  });
});

describe("decompression and amplification bombs (issue 21's table)", () => {
  it("a 1.8 MB XLSX whose sheet inflates to 200 MB is refused at the sheet budget", async () => {
    expect(await refusal("spreadsheet", xlsxBomb(200))).toBe(
      "the spreadsheet file is too large when decompressed: its part xl/worksheets/sheet1.xml inflates to more than 32 MiB (a decompression bomb or an unusually large document), so it was not parsed",
    );
    expect(peakRssBytes()).toBeLessThan(FUNCTION_MEMORY_BYTES);
  });

  it("a DOCX whose document.xml inflates to 450 MB is refused at the Word budget", async () => {
    expect(await refusal("docx", await docxBomb(450))).toBe(
      "the Word file is too large when decompressed: its part word/document.xml inflates to more than 6 MiB (a decompression bomb or an unusually large document), so it was not parsed",
    );
    expect(peakRssBytes()).toBeLessThan(FUNCTION_MEMORY_BYTES);
  });

  it("a PDF with one content stream inflating to 600 MB is refused before pdf.js parses it", async () => {
    expect(await refusal("pdf", pdfStreamBomb(600))).toBe(
      "the PDF file is too large when decompressed: one of its streams inflates to more than 32 MiB (a decompression bomb or an unusually large document), so it was not parsed",
    );
    expect(peakRssBytes()).toBeLessThan(FUNCTION_MEMORY_BYTES);
  });

  it("a text-less PDF page holding a 16000×16000 image is not decoded nor OCRed, and says why", async () => {
    const result = await extract("pdf", pdfImageBomb(16000));
    expect(result.text).toBe("");
    expect(result.notes).toContain("an image of 16000×16000 pixels was not read: it has more than the 32 megapixels that can be read by OCR");
    expect(peakRssBytes()).toBeLessThan(FUNCTION_MEMORY_BYTES);
  });

  it("a 30000×30000 PNG is refused from its header, before any decode", async () => {
    expect(await refusal("image", pngBomb(30000))).toBe("the PNG image is 30000×30000 pixels (900 megapixels), more than the 32 megapixels that can be read by OCR");
    expect(peakRssBytes()).toBeLessThan(FUNCTION_MEMORY_BYTES);
  });

  it("an EPUB whose spine names one chapter 9,999 times reads it once", async () => {
    const once = await extract("epub", epubRepeatBomb(1));
    const repeated = await extract("epub", epubRepeatBomb(9999));
    expect(repeated.text).toBe(once.text);
  });

  it("a PPTX whose slide list names one slide 9,999 times reads it once", async () => {
    const once = await extract("pptx", await pptxRepeatBomb(1));
    const repeated = await extract("pptx", await pptxRepeatBomb(9999));
    expect(repeated.text).toBe(once.text);
    expect(repeated.totalPages).toBe(1);
  });
});

describe("other parts referenced more than once", () => {
  it("a workbook whose 9,999 sheets all name one sheet part is refused before SheetJS reads it 9,999 times", async () => {
    expect(await refusal("spreadsheet", xlsxRepeatBomb(9999))).toBe(
      "the spreadsheet names its part worksheets/sheet1.xml for 9999 sheets; a part is read for one sheet only, so it was not parsed",
    );
    expect((await extract("spreadsheet", xlsxRepeatBomb(1))).totalPages).toBe(1);
  });
});

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
    delete process.env[ENV.extractionRssLimitMb];
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
      // Asked once the thread has started parsing; parsed in this thread, the request would wait for the end.
      const answeredWhileParsing = await new Promise<boolean>((resolve, reject) => {
        const started = () =>
          httpRequest({ host: "127.0.0.1", port: (server.address() as AddressInfo).port }, (response) => {
            response.resume();
            response.on("end", () => resolve(!settled));
          })
            .on("error", reject)
            .end();
        setTimeout(started, 1000);
      });
      await extraction;
      expect(answeredWhileParsing).toBe(true);
    } finally {
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

describe("budgets", () => {
  it("every container format reads its parts within a budget of its own", () => {
    for (const budget of Object.values(CONTAINER_BUDGETS)) {
      expect(budget.maxPartBytes).toBeLessThanOrEqual(budget.maxTotalBytes);
      expect(budget.maxTotalBytes).toBeLessThan(512 * MiB);
    }
  });

  it("image sizes are read from PNG, JPEG, TIFF and WebP headers", async () => {
    const image = { width: 37, height: 23, pixels: new Uint8Array(37 * 23).fill(255) };
    for (const bytes of [png(image), jpegImage(image), tiffImage(image), await webpImage(image)]) {
      expect(imageDimensions(bytes)).toEqual({ width: 37, height: 23 });
    }
    expect(MAX_IMAGE_PIXELS).toBe(32_000_000);
  });

  it("a JPEG, TIFF or WebP over the pixel budget is refused from its header", async () => {
    const jpegHeader = new Uint8Array([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x75, 0x30, 0x75, 0x30, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(await refusal("image", jpegHeader)).toBe("the JPEG image is 30000×30000 pixels (900 megapixels), more than the 32 megapixels that can be read by OCR");
    const tiff = new Uint8Array(8 + 2 + 24 + 4);
    const view = new DataView(tiff.buffer);
    tiff.set([0x49, 0x49, 0x2a, 0x00]);
    view.setUint32(4, 8, true);
    view.setUint16(8, 2, true);
    for (const [index, tag] of [256, 257].entries()) {
      view.setUint16(10 + index * 12, tag, true);
      view.setUint16(12 + index * 12, 4, true);
      view.setUint32(14 + index * 12, 1, true);
      view.setUint32(18 + index * 12, 20000, true);
    }
    expect(await refusal("image", tiff)).toMatch(/^the TIFF image is 20000×20000 pixels/);
    const webp = new Uint8Array(30);
    webp.set(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8X"));
    const size = 16383 - 1;
    webp.set([size & 0xff, size >> 8, 0, size & 0xff, size >> 8, 0], 24);
    expect(await refusal("image", webp)).toMatch(/^the WebP image is 16383×16383 pixels/);
  });
});
