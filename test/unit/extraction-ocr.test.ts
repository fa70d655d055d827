import { afterAll, describe, expect, it } from "vitest";
import { DocumentExtractionError, extractionLimits } from "../../functions/shared/extraction/limits.ts";
import { shutdownOcr } from "../../functions/shared/extraction/ocr.ts";
import { type DocumentFormatId } from "../../functions/shared/domain/catalogs/document-formats.ts";
import type { ExtractionOptions } from "../../functions/shared/extraction/types.ts";
import { IMAGE_LINES, jpegImage, mixedPdf, png, SCANNED_LINES, scannedPdf, textPdf, tiffImage, webpImage } from "../fixtures/documents.ts";
import { loadExtractor } from "../../functions/shared/extraction/index.ts";

/** OCR runs Tesseract in WebAssembly: about a second to start, a fraction of a second per fixture. */
const OCR_TIMEOUT = 120_000;

afterAll(shutdownOcr);

async function extract(id: DocumentFormatId, bytes: Uint8Array, extra: Partial<ExtractionOptions> = {}) {
  return (await loadExtractor(id)).extract(bytes, { limits: extractionLimits(), ...extra });
}

describe("OCR", { timeout: OCR_TIMEOUT }, () => {
  it("reads a scanned PDF page (an embedded image, no text layer) and keeps the text layer of the other", async () => {
    const result = await extract("pdf", await scannedPdf());
    expect(result.pageOffsets).toHaveLength(2);
    const scannedPage = result.text.slice(result.pageOffsets![1]);
    for (const line of SCANNED_LINES) expect(scannedPage).toContain(line);
    expect(result.text.slice(0, result.pageOffsets![1])).toContain("northwind account");
    expect(result.notes).toEqual([]);
  });

  it("with forceOcr, OCRs every page that has an image and notes the pages that have none", async () => {
    const result = await extract("pdf", await scannedPdf(), { forceOcr: true });
    expect(result.text).toContain(SCANNED_LINES[0]);
    expect(result.text).toContain("northwind account");
    expect(result.notes).toEqual(["page 1: no image to OCR (pages are not rasterised); the text layer was kept"]);
  });

  it("with mode accurate, also reads text in images on pages that have a text layer", async () => {
    const bytes = await mixedPdf();
    const plain = await extract("pdf", bytes);
    expect(plain.text).not.toContain(IMAGE_LINES[0]);
    const accurate = await extract("pdf", bytes, { mode: "accurate" });
    expect(accurate.text).toContain("quarterly summary for the board");
    expect(accurate.text).toContain(IMAGE_LINES[0]);
    const withoutImages = await extract("pdf", bytes, { mode: "accurate", disableImageExtraction: true });
    expect(withoutImages.text).not.toContain(IMAGE_LINES[0]);
  });

  it("a text PDF with forceOcr keeps its text and says why", async () => {
    const result = await extract("pdf", await textPdf({ pages: 2 }), { forceOcr: true });
    expect(result.text).toContain("marker-2.");
    expect(result.notes).toEqual(["pages 1–2: no image to OCR (pages are not rasterised); the text layer was kept"]);
  });

  it.each([
    ["PNG", () => png()],
    ["JPEG", () => jpegImage()],
    ["TIFF", () => tiffImage()],
    ["WebP", () => webpImage()],
  ] as const)("reads the text of a %s image", async (_kind, make) => {
    const result = await extract("image", await make());
    expect(result.text).toBe(IMAGE_LINES.join("\n"));
    expect(result.totalPages).toBe(1);
    expect(result.notes).toEqual([]);
  });

  it("uses the French model for languageCode fr, and says so when a language has no model", async () => {
    const french = await extract("image", png(), { languageCode: "fr" });
    expect(french.notes).toEqual([]);
    expect(french.text).toContain("NORTHWIND");
    const german = await extract("image", png(), { languageCode: "de" });
    expect(german.notes).toEqual(['OCR ran in English: no OCR model for language "de" ships with this deployment']);
    expect(german.text).toContain("NORTHWIND");
  });

  it("with strategy fast, does not OCR an image and says so", async () => {
    const result = await extract("image", png(), { strategy: "fast" });
    expect(result).toEqual({ text: "", totalPages: 1, notes: ["the image was not read: OCR is off with strategy fast"] });
  });

  it("refuses an image it cannot decode, and one that is no image", async () => {
    const broken = png().slice(0, 60);
    await expect(extract("image", broken)).rejects.toThrow(/^OCR could not run on the PNG image/);
    await expect(extract("image", new TextEncoder().encode("GIF89a"))).rejects.toThrow(new DocumentExtractionError("the file is not a PNG, JPEG, TIFF or WebP image"));
    // The worker survives a bad image.
    expect((await extract("image", png())).text).toContain("REVENUE");
  });
});
