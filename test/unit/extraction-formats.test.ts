import { strToU8, unzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { DocumentExtractionError, extractionLimits } from "../../functions/shared/extraction/limits.ts";
import { DOCUMENT_FORMATS, type DocumentFormatId } from "../../functions/shared/domain/catalogs/document-formats.ts";
import type { ExtractedDocument, ExtractionOptions } from "../../functions/shared/extraction/types.ts";
import { SUPPORTED_FILE_TYPES } from "../../functions/shared/domain/catalogs/file-types.ts";
import { docxFile, emlFile, epubFile, odtFile, pptxFile, rtfFile, xlsxFile } from "../fixtures/documents.ts";
import { loadExtractor } from "../../functions/shared/extraction/index.ts";

const options = (extra: Partial<ExtractionOptions> = {}): ExtractionOptions => ({ limits: extractionLimits(), ...extra });
const extract = async (id: DocumentFormatId, bytes: Uint8Array, extra: Partial<ExtractionOptions> = {}): Promise<ExtractedDocument> =>
  (await loadExtractor(id)).extract(bytes, options(extra));

function sectionTexts(result: ExtractedDocument): string[] {
  const sections = result.sections ?? [];
  return sections.map((section, index) => result.text.slice(section.offset, sections[index + 1]?.offset ?? result.text.length).trim());
}

describe("format registry", () => {
  it("loads an extractor for every format", async () => {
    for (const id of Object.keys(DOCUMENT_FORMATS) as DocumentFormatId[]) {
      expect(typeof (await loadExtractor(id)).extract, id).toBe("function");
    }
  });

  it("claims each MIME type and extension once", () => {
    const mimeTypes = Object.values(DOCUMENT_FORMATS).flatMap((format) => [...format.mimeTypes]);
    const extensions = Object.values(DOCUMENT_FORMATS).flatMap((format) => [...format.extensions]);
    expect(new Set(mimeTypes).size).toBe(mimeTypes.length);
    expect(new Set(extensions).size).toBe(extensions.length);
    for (const extension of extensions) expect(extension).toMatch(/^\.[a-z0-9]+$/);
  });

  it("is the table uploads accept: exactly the rows marked ingested", () => {
    const ingested = Object.entries(DOCUMENT_FORMATS).filter(([, format]) => format.ingested).map(([id]) => id);
    expect(SUPPORTED_FILE_TYPES.map((type) => type.format)).toEqual(ingested);
  });
});

describe("Word documents", () => {
  it("keep headings, bullet and numbered lists, and tables as Markdown", async () => {
    const result = await extract("docx", await docxFile());
    expect(result.text).toBe(
      [
        "# Employee Handbook",
        "Welcome to the company. This handbook explains the onboarding policy.",
        "## First Week",
        "- Collect your badge\n- Meet your mentor",
        "1. Sign the contract",
        "## Offices",
        "| City | Manager | Desks |\n| --- | --- | --- |\n| Lisbon | Ana Costa | 42 |\n| Oslo | Erik Berg | 17 |",
      ].join("\n\n"),
    );
    expect(result.notes).toEqual([]);
  });

  it("refuses a password-protected (OLE) file and a legacy .doc with one message", async () => {
    const compound = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...new Uint8Array(504)]);
    await expect(extract("docx", compound)).rejects.toThrow(
      new DocumentExtractionError("the Word file is password-protected (encrypted) or a legacy .doc file (save it as .docx), so it cannot be read"),
    );
  });

  it("refuses a truncated file", async () => {
    const bytes = await docxFile();
    await expect(extract("docx", bytes.slice(0, Math.floor(bytes.length / 2)))).rejects.toThrow(/^the Word file is corrupt or truncated/);
  });

  it("refuses a ZIP that is not a Word document", async () => {
    await expect(extract("docx", zipSync({ "hello.txt": strToU8("hi") }))).rejects.toThrow(/not a Word document/);
  });
});

describe("PowerPoint presentations", () => {
  it("give one section per slide, in order, with the title as heading, bullets, tables and speaker notes", async () => {
    const result = await extract("pptx", await pptxFile(3));
    expect(result.totalPages).toBe(3);
    expect(result.sections?.map((section) => section.metadata)).toEqual([{ slide: 1 }, { slide: 2 }, { slide: 3 }]);
    const [first, second] = sectionTexts(result);
    expect(first).toBe(
      "## Quarterly Review 1\n\n- Revenue grew in region 1\n- Churn fell below target\n\nSpeaker notes: Remember to thank the sales team, note-1.",
    );
    expect(second).toContain("| Region | Revenue |\n| --- | --- |\n| North | 102 |\n| South | 87 |");
    expect(second).toContain("note-2.");
  });

  it("follow the presentation's slide order, not the part names", async () => {
    const parts = unzipSync(await pptxFile(2));
    // Swap the two slides in the presentation's list.
    const presentation = new TextDecoder().decode(parts["ppt/presentation.xml"]);
    const ids = [...presentation.matchAll(/<p:sldId [^>]*\/>/g)].map((match) => match[0]);
    parts["ppt/presentation.xml"] = strToU8(presentation.replace(ids[0]!, "@@").replace(ids[1]!, ids[0]!).replace("@@", ids[1]!));
    const result = await extract("pptx", zipSync(parts));
    expect(sectionTexts(result).map((text) => text.split("\n")[0])).toEqual(["## Quarterly Review 2", "## Quarterly Review 1"]);
  });

  it("refuse more slides than the limit", async () => {
    await expect(extract("pptx", await pptxFile(3), { limits: extractionLimits({ maxPages: 2 }) })).rejects.toThrow(
      "the PowerPoint file has 3 slides, more than the 2 allowed",
    );
  });
});

describe("spreadsheets", () => {
  for (const bookType of ["xlsx", "ods"] as const) {
    it(`give one section per ${bookType} sheet with its name as heading and the table as Markdown`, async () => {
      const result = await extract("spreadsheet", xlsxFile(2, bookType));
      expect(result.sections?.map((section) => section.metadata)).toEqual([{ sheet: "Customers" }, { sheet: "Totals" }]);
      expect(sectionTexts(result)).toEqual([
        "## Customers\n\n| Name | City | Balance |\n| --- | --- | --- |\n| Customer 1 | Oslo | 10 |\n| Customer 2 | Quito | 20 |",
        "## Totals\n\n| Metric | Value |\n| --- | --- |\n| Open invoices | 12 |\n| Overdue | 3 |",
      ]);
    });
  }

  it("refuse what is neither a ZIP workbook nor a legacy one", async () => {
    await expect(extract("spreadsheet", strToU8("a,b\n1,2\n"))).rejects.toThrow(/not a spreadsheet/);
  });
});

describe("OpenDocument text", () => {
  it("keeps headings, lists, tables, links and entities", async () => {
    expect((await extract("odt", odtFile())).text).toBe(
      [
        "# Travel Policy",
        "Book trains when the trip is under four hours & keep receipts.",
        "## Allowances",
        "- Meals are reimbursed\n- Taxis need approval",
        "| Country | Daily rate |\n| --- | --- |\n| Portugal | 55 |",
        "See the [travel portal](https://example.com/travel).",
      ].join("\n\n"),
    );
  });
});

describe("EPUB", () => {
  it("reads chapters in spine order as Markdown, without repeating the book title per chapter", async () => {
    const result = await extract("epub", epubFile(3, 1));
    const headings = result.text.split("\n").filter((line) => line.startsWith("#"));
    expect(headings).toEqual(["# Chapter 1", "# Chapter 2", "# Chapter 3"]);
    expect(result.text).toContain("Chapter 2 begins with the lighthouse keeper\u2019s log.\n\n- First entry 2\n- Second entry 2");
    expect(result.text).not.toContain("The Book");
  });
});

describe("RTF", () => {
  it("turns outline levels, list markers and table rows into Markdown and decodes escapes", async () => {
    expect((await extract("rtf", rtfFile())).text).toBe(
      [
        "# Safety Manual",
        "Wear a helmet on site at all times. Caf\u00e9 breaks are at ten.",
        "- Check the harness\n- Report hazards",
        "## Contacts",
        "| Role | Phone |\n| --- | --- |\n| Supervisor | 555-0100 |",
        "Unicode dash \u2014 done.",
      ].join("\n\n"),
    );
  });

  it("skips metadata, font tables and unknown ignorable destinations", async () => {
    const text = (await extract("rtf", rtfFile())).text;
    expect(text).not.toMatch(/Hidden metadata|Times New Roman|Test;/);
  });

  it("refuses what is not RTF", async () => {
    await expect(extract("rtf", strToU8("plain"))).rejects.toThrow(/not RTF/);
  });
});

describe("e-mail", () => {
  it("gives the subject as title, the headers, the plain body and text attachments, and notes the rest", async () => {
    const result = await extract("email", emlFile());
    expect(result.text).toBe(
      [
        "# Lighthouse project minutes",
        "From: Ana Costa <ana@example.com>\nTo: Erik Berg <erik@example.com>, ops@example.com\nCc: Team <team@example.com>\nDate: 2024-07-02T09:30:00.000Z",
        "Hello Erik,\n\nplease find the minutes attached.",
        "## Attachment: minutes.txt\n\nAttached minutes: the budget for the lighthouse project was approved.",
      ].join("\n\n"),
    );
    expect(result.notes).toEqual(["the attachment photo.bin (application/octet-stream) was not read: only text attachments are"]);
  });

  it("reads an HTML-only body as Markdown", async () => {
    const message = strToU8(
      ["From: a@example.com", "Subject: Table", "Content-Type: text/html; charset=utf-8", "", "<h2>Rates</h2><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>"].join("\r\n"),
    );
    const result = await extract("email", message);
    expect(result.text).toBe("# Table\n\nFrom: a@example.com\n\n## Rates\n\n| A | B |\n| --- | --- |\n| 1 | 2 |");
  });

  it("refuses what is not an e-mail", async () => {
    await expect(extract("email", new Uint8Array(0))).rejects.toThrow(DocumentExtractionError);
  });
});
