import { describe, expect, it } from "vitest";
import { create } from "../../functions/shared/extraction/formats/pdf.ts";
import { DocumentExtractionError, extractionLimits } from "../../functions/shared/extraction/limits.ts";
import { joinPageRanges } from "../../functions/shared/extraction/page-ranges.ts";
import type { ExtractionOptions } from "../../functions/shared/extraction/types.ts";
import { corruptPdf, encryptedPdf, pageHeading, textPdf, truncatedPdf } from "../fixtures/documents.ts";

const extractor = create();

const options = (extra: Partial<ExtractionOptions> = {}): ExtractionOptions => ({ limits: extractionLimits(), ...extra });

function pageTexts(result: { text: string; pageOffsets?: number[] }): string[] {
  const offsets = result.pageOffsets ?? [];
  return offsets.map((offset, index) => result.text.slice(offset, offsets[index + 1] ?? result.text.length));
}

describe("PDF extraction", () => {
  it("gives one page offset per page, the page count and each page's own text at its offset", async () => {
    const result = await extractor.extract(await textPdf({ pages: 5 }), options());
    expect(result.totalPages).toBe(5);
    expect(result.firstPage).toBe(1);
    expect(result.pageOffsets).toHaveLength(5);
    pageTexts(result).forEach((text, index) => {
      expect(text).toContain(`marker-${index + 1}.`);
      expect(text).not.toContain(`marker-${index + 2}.`);
    });
    expect(result.notes).toEqual([]);
  });

  it("keeps the reading order, paragraphs and larger type as Markdown headings", async () => {
    const result = await extractor.extract(await textPdf({ pages: 1, paragraphsPerPage: 2 }), options());
    expect(result.text.startsWith(`## ${pageHeading(1)}\n\n`)).toBe(true);
    const [first, second] = result.text.split("\n\n").slice(1);
    expect(first).toMatch(/^Paragraph 1 mentions marker-1\./);
    expect(second).toMatch(/^Paragraph 2 mentions marker-1\./);
  });

  it("removes a running header and 'Page N of M' footers by default", async () => {
    const result = await extractor.extract(await textPdf({ pages: 6, header: "Northwind Handbook", pageNumbers: true }), options());
    expect(result.text).not.toContain("Northwind Handbook");
    expect(result.text).not.toMatch(/Page \d of 6/);
    expect(result.text).toContain(`## ${pageHeading(3)}`);
    expect(pageTexts(result)[2]!.startsWith(`## ${pageHeading(3)}`)).toBe(true);
  });

  it("keeps headers and footers when asked, each flag on its own", async () => {
    const bytes = await textPdf({ pages: 6, header: "Northwind Handbook", pageNumbers: true });
    const headers = await extractor.extract(bytes, options({ keepPageheaderInOutput: true }));
    expect(headers.text.match(/Northwind Handbook/g)).toHaveLength(6);
    expect(headers.text).not.toMatch(/Page \d of 6/);
    const footers = await extractor.extract(bytes, options({ keepPagefooterInOutput: true }));
    expect(footers.text).not.toContain("Northwind Handbook");
    expect(footers.text.match(/Page \d of 6/g)).toHaveLength(6);
  });

  it("does not take a heading that repeats its shape on every page for a running header", async () => {
    // Every page opens with "Section <name> A": same shape, different words, and no page number.
    const result = await extractor.extract(await textPdf({ pages: 6 }), options());
    for (let page = 1; page <= 6; page++) expect(result.text).toContain(`## ${pageHeading(page)}`);
  });

  it("extracts only the requested page range, numbering it from its first page", async () => {
    const bytes = await textPdf({ pages: 12, header: "Northwind Handbook", pageNumbers: true });
    const result = await extractor.extract(bytes, options({ pageRange: { first: 4, last: 5 } }));
    expect(result.firstPage).toBe(4);
    expect(result.totalPages).toBe(12);
    expect(result.pageOffsets).toHaveLength(2);
    expect(pageTexts(result)[0]).toContain("marker-4.");
    expect(pageTexts(result)[1]).toContain("marker-5.");
    for (const other of [1, 2, 3, 6, 7, 12]) expect(result.text).not.toContain(`marker-${other}.`);
    // A two-page range still recognises the running matter, from the neighbouring pages.
    expect(result.text).not.toContain("Northwind Handbook");
    expect(result.text).not.toContain("Page 4 of 12");
  });

  it("clamps a page range to the document", async () => {
    const result = await extractor.extract(await textPdf({ pages: 3 }), options({ pageRange: { first: 2, last: 99 } }));
    expect(result.firstPage).toBe(2);
    expect(result.pageOffsets).toHaveLength(2);
  });

  it("stops starting pages at the soft stop and says which page it got to, having read at least one", async () => {
    const bytes = await textPdf({ pages: 6 });
    const result = await extractor.extract(bytes, options({ pageRange: { first: 2, last: 6 }, stopAtMs: Date.now() - 1 }));
    expect(result).toMatchObject({ firstPage: 2, lastPage: 2, totalPages: 6 });
    expect(result.pageOffsets).toHaveLength(1);
    expect(result.text).toContain("marker-2.");
    expect(result.text).not.toContain("marker-3.");
    expect((await extractor.extract(bytes, options())).lastPage).toBe(6);
  });

  it("joined page ranges read like the whole document read at once", async () => {
    const bytes = await textPdf({ pages: 7, paragraphsPerPage: 2 });
    const whole = await extractor.extract(bytes, options());
    const ranges = [];
    for (const first of [1, 4, 7]) ranges.push(await extractor.extract(bytes, options({ pageRange: { first, last: first + 2 } })));
    const joined = joinPageRanges(ranges);
    expect(joined.text).toBe(whole.text);
    expect(joined.pageOffsets).toEqual(whole.pageOffsets);
    expect(joined).toMatchObject({ firstPage: 1, lastPage: 7, totalPages: 7, notes: [] });
  });

  it("refuses a document with more pages than the limit", async () => {
    const bytes = await textPdf({ pages: 4 });
    await expect(extractor.extract(bytes, options({ limits: extractionLimits({ maxPages: 3 }) }))).rejects.toThrow(
      new DocumentExtractionError("the PDF file has 4 pages, more than the 3 allowed"),
    );
  });

  it("stops at the deadline with a parse error", async () => {
    const bytes = await textPdf({ pages: 3 });
    await expect(extractor.extract(bytes, options({ limits: extractionLimits({ deadlineMs: Date.now() - 1 }) }))).rejects.toThrow(/took too long/);
  });

  it("refuses an encrypted PDF with a clear message", async () => {
    const bytes = await encryptedPdf();
    await expect(extractor.extract(bytes, options())).rejects.toThrow(new DocumentExtractionError("the PDF is encrypted with a password, so its text cannot be read"));
  });

  it("refuses a corrupt PDF", async () => {
    await expect(extractor.extract(corruptPdf(), options())).rejects.toThrow(/^the PDF file is corrupt and cannot be read/);
  });

  it("refuses a truncated PDF rather than returning its first pages", async () => {
    await expect(extractor.extract(await truncatedPdf(), options())).rejects.toThrow(/the PDF file is truncated/);
  });

  it("refuses what is not a PDF", async () => {
    await expect(extractor.extract(new TextEncoder().encode("hello"), options())).rejects.toThrow(/not a PDF/);
  });

  it("leaves the caller's bytes usable", async () => {
    const bytes = await textPdf({ pages: 2 });
    await extractor.extract(bytes, options());
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect((await extractor.extract(bytes, options())).totalPages).toBe(2);
  });

  it("with strategy fast, notes pages that have no text layer instead of running OCR", async () => {
    const { scannedPdf } = await import("../fixtures/documents.ts");
    const result = await extractor.extract(await scannedPdf(), options({ strategy: "fast" }));
    expect(result.notes).toEqual(["page 2: no text layer (OCR is off with strategy fast)"]);
    expect(result.text).toContain("northwind account");
  });
});
