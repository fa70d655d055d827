import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { headingRecall, linesInOrder, listNumbers, markdownHeadings, pageBoundaryBreaks, standaloneTableChunks, wordRecall } from "../../bench/fidelity/metrics.ts";
import { detectedMimeType } from "../../functions/shared/extraction/detect-type.ts";
import { fileTypeOf } from "../../functions/shared/domain/catalogs/file-types.ts";
import { loadExtractor } from "../../functions/shared/extraction/index.ts";
import { extractionLimits } from "../../functions/shared/extraction/limits.ts";
import type { DocumentFormatId } from "../../functions/shared/domain/catalogs/document-formats.ts";
import type { ExtractedDocument } from "../../functions/shared/extraction/types.ts";
import { chunkText } from "../../functions/shared/text/chunker.ts";
import { jpegImage } from "../fixtures/documents.ts";
import { FIDELITY_FIXTURES } from "../fixtures/fidelity-sources.ts";

/**
 * Documents made by pandoc, LibreOffice, groff + ghostscript and pdfTeX from real text
 * (scripts/fidelity-fixtures.ts), read back and compared with the text they were made from.
 */

const fixture = (name: string) => new Uint8Array(readFileSync(join(FIDELITY_FIXTURES, name)));
const source = (name: string) => readFileSync(join(FIDELITY_FIXTURES, name), "utf8");

async function extract(name: string, format: DocumentFormatId): Promise<ExtractedDocument> {
  return (await loadExtractor(format)).extract(fixture(name), { limits: extractionLimits() });
}

const GPL3_HEADINGS = markdownHeadings(source("gpl3.md"));
/** GPL 2's terms are a list numbered from 0, resumed at 11 after the "NO WARRANTY" heading. */
const GPL2_NUMBERS = listNumbers(source("gpl2.md"));

describe("documents read the way their authors wrote them", () => {
  it("the GPL 2 terms keep their numbers from 0, the resumed 11 and 12, and nested items their depth, in every format", async () => {
    expect(GPL2_NUMBERS).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    for (const [name, format] of [["gpl2.odt", "odt"], ["gpl2.docx", "docx"], ["gpl2.rtf", "rtf"], ["gpl2.epub", "epub"], ["gpl2.html", "html"]] as const) {
      const { text } = await extract(name, format);
      const numbers = [...text.matchAll(/^(\d+)\. /gm)].map((match) => Number(match[1]));
      expect(numbers, name).toEqual(GPL2_NUMBERS);
      // Section 2's sub-items stay under it, one level in, lettered where the format says so.
      expect(text, name).toMatch(/^2\. You may modify[^\n]*\n(?:[^\n]*\n)*? {2}(?:a[.)]|1\.) You must cause the modified files/m);
    }
  });

  it("RTF from LibreOffice keeps every heading its 'Heading n' paragraph styles mark", async () => {
    const { text } = await extract("gpl3.rtf", "rtf");
    expect(headingRecall(GPL3_HEADINGS, markdownHeadings(text))).toMatchObject({ found: 23, total: 23 });
    expect(text).toMatch(/^# GNU GENERAL PUBLIC LICENSE$/m);
    expect(text).toMatch(/^### 0\. Definitions\.$/m);
  });

  it("a PDF takes its headings from its bookmarks, or from its type when it has none", async () => {
    const outlined = await extract("gpl3.pdf", "pdf");
    expect(headingRecall(GPL3_HEADINGS, markdownHeadings(outlined.text))).toMatchObject({ found: 23, total: 23 });
    const plain = await extract("gpl3-no-outline.pdf", "pdf");
    expect(headingRecall(GPL3_HEADINGS, markdownHeadings(plain.text)).found).toBeGreaterThanOrEqual(21);
    expect(markdownHeadings(plain.text).length).toBeLessThanOrEqual(25);
  });

  it("paragraphs run on over page breaks where the sentence does", async () => {
    for (const [name, reference] of [["gpl3.pdf", "gpl3.md"], ["gpl2.pdf", "gpl2.md"], ["find.pdf", "find.txt"]] as const) {
      const extracted = await extract(name, "pdf");
      const breaks = pageBoundaryBreaks(source(reference), extracted.text, extracted.pageOffsets!);
      expect(breaks.midSentence, name).toBeGreaterThan(0);
      expect(breaks.broken, name).toBe(0);
    }
    const { text } = await extract("gpl3.pdf", "pdf");
    expect(text).toContain("For both users’ and authors’ sake");
  });

  it("joins words groff hyphenated at line ends, keeping the hyphens that belong to words", async () => {
    const { text } = await extract("find.pdf", "pdf");
    expect(text).toContain("rules of precedence");
    expect(text).not.toMatch(/prece-\s*dence|infor-\s*mation/);
    expect(wordRecall(source("find.txt"), text)).toBeGreaterThanOrEqual(0.99);
    expect(text).toContain("non-zero");
    expect(text).not.toContain("FIND(1)");
  });

  it("removes a pdfTeX manual's running heads, whose text changes with the chapter, and keeps its outline's headings", async () => {
    const { text } = await extract("libtasn1.pdf", "pdf");
    expect(text).not.toMatch(/^Chapter \d+: .+ \d+$/m);
    expect(text).not.toMatch(/^\d+ GNU Libtasn1 API Reference Manual$/m);
    expect(text).toMatch(/^# 1 Introduction$/m);
    expect(text).toMatch(/^## 2\.1 ASN\.1 syntax$/m);
    expect(text).toContain("management");
  });

  it("an Arabic PDF reads right to left: its sentences' words come in the order they were written", async () => {
    const { text } = await extract("arabic.pdf", "pdf");
    const order = (first: string, second: string) => text.indexOf(first) >= 0 && text.indexOf(first) < text.indexOf(second);
    expect(order("للغرابة", "تتطابق")).toBe(true);
    expect(order("مراسلة", "apt@packages.debian.org")).toBe(true);
    expect(order("طلب", "InstallPackages")).toBe(true);
    // Lam-alef ligatures keep their letters in order, so every word reads as written.
    expect(text).toContain("الأوساط");
    expect(wordRecall(source("arabic.md"), text)).toBeGreaterThanOrEqual(0.99);
    const lines = linesInOrder(source("arabic.md"), text);
    expect(lines.lines).toBeGreaterThan(10);
    expect(lines.inOrder).toBe(lines.lines);
  });

  it("every chunk of a long sheet carries the sheet's name and header row", async () => {
    for (const [name, format] of [["codes.xlsx", "spreadsheet"], ["codes.ods", "spreadsheet"]] as const) {
      const { text } = await extract(name, format);
      const chunks = chunkText(text, { chunkSize: 1024, chunkOverlap: 0, strategy: "basic" });
      const counted = standaloneTableChunks(chunks.map((chunk) => chunk.text));
      expect(counted.withRows, name).toBeGreaterThan(20);
      expect(counted.standalone, name).toBe(counted.withRows);
      const languages = chunks.filter((chunk) => chunk.repeated !== undefined && chunk.text.startsWith("## Languages"));
      expect(languages.length, name).toBeGreaterThan(5);
      for (const chunk of languages) expect(chunk.text.startsWith("## Languages\n\n| Alpha-3 | Alpha-2 | Name |\n| --- | --- | --- |\n"), name).toBe(true);
    }
  });

  it("a PDF with no pages fails saying so, not that it is corrupt", async () => {
    await expect(extract("empty.pdf", "pdf")).rejects.toThrow("the PDF has no pages");
  });

  it("reports the type the bytes are, not the reader's first MIME type", async () => {
    expect(await detectedMimeType(fixture("codes.ods"), fileTypeOf("spreadsheet"))).toBe("application/vnd.oasis.opendocument.spreadsheet");
    expect(await detectedMimeType(fixture("codes.xlsx"), fileTypeOf("spreadsheet"))).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(await detectedMimeType(jpegImage(), fileTypeOf("image"))).toBe("image/jpeg");
    // Text has no magic number: the resolved type stands.
    expect(await detectedMimeType(new TextEncoder().encode("a,b\n1,2\n"), fileTypeOf("csv"))).toBe("text/csv");
  });
});
