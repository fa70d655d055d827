import { strToU8, zipSync, type Zippable } from "fflate";
import { describe, expect, it } from "vitest";
import { CONTAINER_BUDGETS, DocumentExtractionError, extractionLimits, formatBytes } from "../../functions/shared/extraction/limits.ts";
import { type DocumentFormatId } from "../../functions/shared/domain/catalogs/document-formats.ts";
import type { ExtractionLimits } from "../../functions/shared/extraction/types.ts";
import { parseXml } from "../../functions/shared/extraction/xml.ts";
import { unzip } from "../../functions/shared/extraction/zip.ts";
import { BILLION_LAUGHS, deflatedZeros, docxWithDocumentXml, epubFile, pptxFile, zipBomb } from "../fixtures/documents.ts";
import { loadExtractor } from "../../functions/shared/extraction/index.ts";

const MiB = 1024 * 1024;

async function extract(id: DocumentFormatId, bytes: Uint8Array, limits: Partial<ExtractionLimits> = {}) {
  return (await loadExtractor(id)).extract(bytes, { limits: extractionLimits(limits) });
}

/** How much the process grew while `run` ran, sampled every few milliseconds, and what it threw. */
async function peakGrowth(run: () => Promise<unknown>): Promise<{ growth: number; error: unknown }> {
  globalThis.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  let error: unknown;
  try {
    await run();
  } catch (caught) {
    error = caught;
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return { growth: peak - before, error };
}

describe("zip bombs", () => {
  it("deflatedZeros really inflates to what it says", () => {
    const archive = unzip(zipBomb("a.xml", 4 * MiB, 4 * MiB), { label: "test", limits: extractionLimits() });
    const content = archive.files.get("a.xml")!;
    expect(content.length).toBe(1 + 258 * Math.floor((4 * MiB - 1) / 258));
    expect(content.every((byte) => byte === 0)).toBe(true);
    expect(deflatedZeros(1024 * MiB).length).toBeLessThan(7 * MiB);
  });

  // Each container's main part is the bomb, so the format cannot skip it.
  const cases: [DocumentFormatId & keyof typeof CONTAINER_BUDGETS, string, string][] = [
    ["docx", "word/document.xml", "Word"],
    ["pptx", "ppt/presentation.xml", "PowerPoint"],
    ["spreadsheet", "xl/workbook.xml", "spreadsheet"],
    ["odt", "content.xml", "OpenDocument"],
    ["epub", "META-INF/container.xml", "EPUB"],
  ];
  it.each(cases)("a %s bomb whose part claims 1 KB and inflates to 1 GiB stops at the format's part budget without the memory", async (id, part, label) => {
    const bomb = zipBomb(part, 1024 * MiB, 1000);
    const { growth, error } = await peakGrowth(() => extract(id, bomb));
    expect(error).toBeInstanceOf(DocumentExtractionError);
    expect((error as Error).message).toBe(
      `the ${label} file is too large when decompressed: its part ${part} inflates to more than ${formatBytes(CONTAINER_BUDGETS[id].maxPartBytes)} (a decompression bomb or an unusually large document), so it was not parsed`,
    );
    // Inflating the whole entry would take 1 GiB; the budget keeps it to tens of MiB.
    expect(growth).toBeLessThan(400 * MiB);
  });

  it("a smaller overall bound given by the caller stops the inflation at that bound", async () => {
    const { error } = await peakGrowth(() => extract("docx", zipBomb("word/document.xml", 64 * MiB, 1000), { maxDecompressedBytes: 1 * MiB }));
    expect((error as Error).message).toBe(
      "the Word file is too large when decompressed: the text it holds inflates to more than 1 MiB (a decompression bomb or an unusually large document), so it was not parsed",
    );
  });

  it("a part that declares more than the bound is refused before anything is inflated", async () => {
    const bomb = zipBomb("word/document.xml", 1 * MiB, 0xfffffff0);
    const { error, growth } = await peakGrowth(() => extract("docx", bomb));
    expect((error as Error).message).toMatch(/^the Word file is too large when decompressed: its part word\/document.xml inflates to more than 6 MiB/);
    // Nothing inflated: the process grows by no more than the parser's own start-up.
    expect(growth).toBeLessThan(32 * MiB);
  });

  it("a container listing more parts than allowed is refused", async () => {
    const files: Zippable = {};
    for (let index = 0; index < 50; index++) files[`word/part${index}.xml`] = strToU8("<a/>");
    await expect(extract("docx", zipSync(files), { maxEntries: 10 })).rejects.toThrow("the Word file lists 50 parts, more than the 10 allowed");
  });

  it("a part with a compression method we do not inflate is refused", async () => {
    const bytes = zipSync({ "word/document.xml": strToU8("<a/>") }, { level: 0 });
    // The method field of the central directory entry (offset 10) and of the local header (offset 8).
    const view = new DataView(bytes.buffer);
    const central = bytes.length - 22 - 46 - "word/document.xml".length;
    view.setUint16(central + 10, 14, true);
    await expect(extract("docx", bytes)).rejects.toThrow("the Word file uses a compression method (14) that is not supported");
  });
});

describe("XML entities", () => {
  it("a billion-laughs document part is refused at once", async () => {
    const bytes = await docxWithDocumentXml(BILLION_LAUGHS);
    const { growth, error } = await peakGrowth(() => extract("docx", bytes));
    expect(error).toEqual(new DocumentExtractionError("the Word file declares XML entities (a document type definition), which are refused for safety"));
    expect(growth).toBeLessThan(100 * MiB);
  });

  it("an external entity in a slide is refused, so nothing is ever fetched or read", async () => {
    const { unzipSync } = await import("fflate");
    const parts = unzipSync(await pptxFile(1));
    const slide = new TextDecoder().decode(parts["ppt/slides/slide1.xml"]);
    parts["ppt/slides/slide1.xml"] = strToU8(
      slide.replace("?>", '?><!DOCTYPE p:sld [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>').replace("Quarterly Review 1", "&xxe;"),
    );
    await expect(extract("pptx", zipSync(parts))).rejects.toThrow(/declares XML entities/);
  });

  it("an EPUB chapter declaring entities is refused", async () => {
    const { unzipSync } = await import("fflate");
    const parts = unzipSync(epubFile(1, 1));
    const chapter = new TextDecoder().decode(parts["OEBPS/text/chapter1.xhtml"]);
    parts["OEBPS/text/chapter1.xhtml"] = strToU8(chapter.replace("<!DOCTYPE html>", '<!DOCTYPE html [<!ENTITY a "aaaaaaaaaa">]>'));
    await expect(extract("epub", zipSync(parts))).rejects.toThrow("the EPUB file declares XML entities (a document type definition), which are refused for safety");
  });

  it("parseXml refuses entity declarations and leaves undeclared references as text", () => {
    expect(() => parseXml(BILLION_LAUGHS, "test")).toThrow(DocumentExtractionError);
    const root = parseXml("<a>&lol9; &amp; &#233;</a>", "test");
    expect(root.children[0]).toEqual({ name: "a", attributes: {}, children: ["&lol9; & \u00e9"] });
  });

  it("parseXml refuses hostile nesting", () => {
    expect(() => parseXml("<a>".repeat(5000), "test")).toThrow(/nests XML elements more than 1024 levels deep/);
  });
});

describe("other hostile inputs", () => {
  it("RTF nested beyond reason is refused", async () => {
    await expect(extract("rtf", strToU8(`{\\rtf1 ${"{".repeat(10_000)}x${"}".repeat(10_000)}}`))).rejects.toThrow(/nests groups more than 4096 levels deep/);
  });

  it("an RTF file past the deadline stops with a parse error", async () => {
    await expect(extract("rtf", strToU8(`{\\rtf1 ${"word ".repeat(100_000)}}`), { deadlineMs: Date.now() - 1 })).rejects.toThrow(/took too long/);
  });
});
