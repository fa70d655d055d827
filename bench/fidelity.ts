/**
 * Fidelity benchmark (issue 23): documents made by third-party tools from real text
 * (scripts/fidelity-fixtures.ts: pandoc, LibreOffice, groff + ghostscript, a Debian pdfTeX manual;
 * committed under test/fixtures/fidelity/) are read by the extraction layer and compared with the
 * text their authors wrote: word recall, heading recall, paragraph breaks inserted mid-sentence at
 * page boundaries, ordered-list numbers, right-to-left word order, running headers left in, and
 * whether every chunk holding table rows carries its header row.
 *
 *   npx tsx bench/fidelity.ts [--results FILE|--no-results]
 *
 * Prints the Markdown table of the README and exits non-zero when a target is missed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getResolvedPDFJS } from "unpdf";
import { loadExtractor } from "../functions/shared/extraction/index.ts";
import { extractionLimits } from "../functions/shared/extraction/limits.ts";
import type { DocumentFormatId } from "../functions/shared/domain/catalogs/document-formats.ts";
import { textExtractor } from "../functions/shared/extraction/text-formats.ts";
import type { ExtractedDocument } from "../functions/shared/extraction/types.ts";
import { chunkText } from "../functions/shared/text/chunker.ts";
import { FIDELITY_FIXTURES } from "../test/fixtures/fidelity-sources.ts";
import {
  type FidelityRow,
  headingRecall,
  listNumberRecall,
  listNumbers,
  markdownHeadings,
  missedTargets,
  pageBoundaryBreaks,
  runningMatterLeft,
  standaloneTableChunks,
  linesInOrder,
  wordRecall,
} from "./fidelity/metrics.ts";
import { isEntryPoint, saveResults } from "./support.ts";

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/fidelity.json", import.meta.url));

interface Document {
  file: string;
  format: DocumentFormatId;
  tool: string;
  /** The text the document was made from. */
  reference?: () => string;
  headings?: () => Promise<string[]> | string[];
  /** 1.0 for formats that mark headings, 0.9 for a PDF from a tool that writes outlines; none for the others. */
  headingTarget?: number;
  lists?: boolean;
  wordOrder?: boolean;
  runningMatter?: RegExp[];
  tables?: boolean;
  fails?: RegExp;
}

const read = (name: string) => readFileSync(join(FIDELITY_FIXTURES, name), "utf8");

/** The headings of find(1) as its source marks them (.SH and .SS). */
function manHeadings(source: string): string[] {
  const escapes: Record<string, string> = { "\\-": "-", "\\(lq": "“", "\\(rq": "”" };
  return [...source.matchAll(/^\.S[HS] +(.+)$/gm)].map((match) => match[1]!.replace(/^"|"$/g, "").replace(/\\f[BIRP]|\\-|\\\(lq|\\\(rq/g, (escape) => escapes[escape] ?? ""));
}

/** The author's outline of a PDF: every bookmark title, depth first. */
async function outlineTitles(file: string): Promise<string[]> {
  const pdfjs = await getResolvedPDFJS();
  const pdf = await pdfjs.getDocument({ data: new Uint8Array(readFileSync(join(FIDELITY_FIXTURES, file))), verbosity: 0 }).promise;
  const titles: string[] = [];
  const walk = (items: { title: string; items: unknown[] }[] | null) => {
    for (const item of items ?? []) {
      titles.push(item.title);
      walk(item.items as { title: string; items: unknown[] }[]);
    }
  };
  walk((await pdf.getOutline()) as { title: string; items: unknown[] }[] | null);
  await pdf.loadingTask.destroy();
  return titles;
}

function spreadsheetReference(): string {
  const sheets = JSON.parse(read("codes.json")) as { name: string; header: string[]; rows: string[][] }[];
  return sheets.map((sheet) => [sheet.name, sheet.header.join(" "), ...sheet.rows.map((row) => row.join(" "))].join("\n")).join("\n\n");
}

function documents(): Document[] {
  const licence = (name: string): Document[] => {
    const reference = () => read(`${name}.md`);
    const headings = () => markdownHeadings(reference());
    const lists = name === "gpl2";
    const made = (file: string, format: DocumentFormatId, tool: string, headingTarget?: number): Document => ({ file, format, tool, reference, headings, headingTarget, lists });
    return [
      made(`${name}.md`, "markdown", "the source (Markdown)", 1),
      made(`${name}.html`, "html", "pandoc", 1),
      made(`${name}.docx`, "docx", "pandoc", 1),
      made(`${name}.odt`, "odt", "pandoc", 1),
      made(`${name}.epub`, "epub", "pandoc", 1),
      made(`${name}.rtf`, "rtf", "LibreOffice", 1),
      made(`${name}.pdf`, "pdf", "LibreOffice (bookmarks)", 0.9),
    ];
  };
  return [
    ...licence("gpl3"),
    { file: "gpl3-no-outline.pdf", format: "pdf", tool: "LibreOffice (no bookmarks)", reference: () => read("gpl3.md"), headings: () => markdownHeadings(read("gpl3.md")) },
    ...licence("gpl2"),
    {
      file: "find.pdf",
      format: "pdf",
      tool: "groff + ghostscript",
      reference: () => read("find.txt"),
      headings: () => manHeadings(read("find.1")),
      runningMatter: [/^FIND\(1\)/],
    },
    {
      file: "libtasn1.pdf",
      format: "pdf",
      tool: "pdfTeX (Debian's manual)",
      headings: () => outlineTitles("libtasn1.pdf"),
      headingTarget: 0.9,
      runningMatter: [/^Chapter \d+: .+ \d+$/, /^\d+ GNU Libtasn1 API Reference Manual$/, /^Appendix [A-Z]: .+ \d+$/],
    },
    { file: "arabic.pdf", format: "pdf", tool: "LibreOffice (Arabic)", reference: () => read("arabic.md"), wordOrder: true },
    { file: "codes.xlsx", format: "spreadsheet", tool: "LibreOffice", reference: spreadsheetReference, tables: true },
    { file: "codes.ods", format: "spreadsheet", tool: "LibreOffice", reference: spreadsheetReference, tables: true },
    { file: "empty.pdf", format: "pdf", tool: "qpdf --empty", fails: /the PDF has no pages/ },
  ];
}

async function extract(document: Document): Promise<ExtractedDocument> {
  const bytes = new Uint8Array(readFileSync(join(FIDELITY_FIXTURES, document.file)));
  const extractor = document.format === "markdown" || document.format === "html" ? textExtractor(document.format) : await loadExtractor(document.format);
  return extractor.extract(bytes, { limits: extractionLimits() });
}

interface Result extends FidelityRow {
  file: string;
  format: DocumentFormatId;
  tool: string;
  missed: string[];
  missingHeadings: string[];
}

export async function measure(document: Document): Promise<Result> {
  const row: FidelityRow = {
    wordRecall: null,
    headings: null,
    headingTarget: document.headingTarget ?? null,
    pageBreaks: null,
    listNumbers: null,
    wordOrder: null,
    runningMatterLeft: null,
    tableChunks: null,
    expectedFailure: null,
  };
  let missingHeadings: string[] = [];
  let extracted: ExtractedDocument;
  try {
    extracted = await extract(document);
  } catch (error) {
    if (!document.fails) throw error;
    row.expectedFailure = document.fails.test(error instanceof Error ? error.message : String(error));
    return { ...row, file: document.file, format: document.format, tool: document.tool, missed: missedTargets(row), missingHeadings };
  }
  if (document.fails) row.expectedFailure = false;
  const text = extracted.text;
  const reference = document.reference?.();
  if (reference !== undefined) row.wordRecall = wordRecall(reference, text);
  if (document.headings) {
    const recall = headingRecall(await document.headings(), markdownHeadings(text));
    row.headings = { found: recall.found, total: recall.total };
    missingHeadings = recall.missing;
  }
  if (reference !== undefined && extracted.pageOffsets && extracted.pageOffsets.length > 1) {
    const breaks = pageBoundaryBreaks(reference, text, extracted.pageOffsets);
    row.pageBreaks = { midSentence: breaks.midSentence, broken: breaks.broken };
  }
  if (document.lists && reference !== undefined) row.listNumbers = listNumberRecall(listNumbers(reference), listNumbers(text));
  if (document.wordOrder && reference !== undefined) row.wordOrder = linesInOrder(reference, text);
  if (document.runningMatter) row.runningMatterLeft = runningMatterLeft(text, document.runningMatter);
  if (document.tables) {
    const chunks = chunkText(text, { chunkSize: 1024, chunkOverlap: 0, strategy: "basic" });
    row.tableChunks = standaloneTableChunks(chunks.map((chunk) => chunk.text));
  }
  return { ...row, file: document.file, format: document.format, tool: document.tool, missed: missedTargets(row), missingHeadings };
}

function table(results: readonly Result[]): string {
  const lines = [
    "| document | format | made by | word recall | headings found | mid-sentence page breaks | list numbers | other | targets |",
    "|---|---|---|---:|---:|---:|---:|---|---|",
  ];
  for (const result of results) {
    const other: string[] = [];
    if (result.wordOrder) other.push(`lines in reading order: ${result.wordOrder.inOrder}/${result.wordOrder.lines}`);
    if (result.runningMatterLeft !== null) other.push(`running headers left: ${result.runningMatterLeft}`);
    if (result.tableChunks) other.push(`chunks with rows that carry the header: ${result.tableChunks.standalone}/${result.tableChunks.withRows}`);
    if (result.expectedFailure !== null) other.push(result.expectedFailure ? "refused: the PDF has no pages" : "not refused as expected");
    lines.push(
      [
        "",
        result.file,
        result.format,
        result.tool,
        result.wordRecall === null ? "—" : result.wordRecall.toFixed(3),
        result.headings ? `${result.headings.found}/${result.headings.total}` : "—",
        result.pageBreaks ? `${result.pageBreaks.broken} of ${result.pageBreaks.midSentence}` : "—",
        result.listNumbers ? `${result.listNumbers.found}/${result.listNumbers.total}` : "—",
        other.join("; ") || "—",
        result.missed.length === 0 ? "met" : `**missed**: ${result.missed.join("; ")}`,
        "",
      ].join(" | ").trim(),
    );
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const resultsAt = args.indexOf("--results");
  const resultsFile = args.includes("--no-results") ? null : resultsAt >= 0 ? args[resultsAt + 1] : undefined;
  const results: Result[] = [];
  for (const document of documents()) results.push(await measure(document));
  console.log(table(results));
  for (const result of results) {
    if (result.missingHeadings.length > 0) console.log(`\n${result.file}: headings not found: ${result.missingHeadings.slice(0, 12).join(" · ")}`);
  }
  saveResults(resultsFile, DEFAULT_RESULTS_FILE, { results }, console.log);
  process.exitCode = results.some((result) => result.missed.length > 0) ? 1 : 0;
}

if (isEntryPoint(import.meta.url)) await main();
