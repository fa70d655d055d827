import { afterAll, describe, expect, it } from "vitest";
import { shutdownExtractionThreads } from "../../functions/shared/extraction/isolation.ts";
import { imageDimensions } from "../../functions/shared/extraction/image-size.ts";
import { CONTAINER_BUDGETS, extractionLimits, MAX_IMAGE_PIXELS } from "../../functions/shared/extraction/limits.ts";
import { unzip } from "../../functions/shared/extraction/zip.ts";
import {
  deflatedRepeat,
  docxBomb,
  epubRepeatBomb,
  pdfImageBomb,
  pdfStreamBomb,
  pngBomb,
  pptxRepeatBomb,
  xlsxBomb,
  xlsxRepeatBomb,
} from "../fixtures/bombs.ts";
import { jpegImage, png, tiffImage, webpImage } from "../fixtures/documents.ts";
import { extract, refusal } from "../support/isolated-extraction.ts";

/**
 * Issue 21 §1: each bomb of the table, read as the ingest worker reads it (in an
 * extraction thread), is refused with its reason, or read once where it repeats a part, before
 * any large allocation (a file that defeats the budgets is stopped by the thread's heap cap and
 * time limit without harming the process: extraction-thread.test.ts). Peak RSS is the process's own high-water mark, which
 * counts the extraction threads (they share the process).
 */

const MiB = 1024 * 1024;
const FUNCTION_MEMORY_BYTES = 1769 * 1024 * 1024;

afterAll(() => shutdownExtractionThreads());

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
