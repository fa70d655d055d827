import { getResolvedPDFJS } from "unpdf";
import { checkDeadline, checkPageCount, DocumentExtractionError, MAX_IMAGE_PIXELS } from "../limits.ts";
import { checkPdfStreams } from "../pdf-streams.ts";
import { OffsetWriter } from "../markdown.ts";
import { encodePnm, ocrLanguage, OcrUnavailableError, recognize, tidyOcrText, type OcrLanguage, type RawImage } from "../ocr.ts";
import type { ExtractedDocument, ExtractionLimits, ExtractionOptions, FormatExtractor } from "../types.ts";
import {
  assignHeadingsByType,
  bodySize,
  boldCandidateFonts,
  continuesAcrossPages,
  findTitleLines,
  type LayoutLine,
  lineEndHyphen,
  LigatureOrder,
  type LineRun,
  lineText,
  WordStatistics,
} from "../pdf-layout.ts";

/**
 * PDF through unpdf's serverless build of pdf.js (no worker file, no canvas): the text layer page
 * by page, in content order, with lines and paragraphs rebuilt from glyph positions, right-to-left
 * lines in reading order, repeated page headers and footers removed, and OCR of a page's embedded
 * image(s) where the page has no text layer (or everywhere, when asked). Headings come from the
 * document's outline (bookmarks) where it has one, else from the type (pdf-layout.ts); a paragraph
 * that runs over a page break stays one paragraph, and a word hyphenated at a line end is joined
 * when the document spells it whole. Only the requested page range is read, so a long document is
 * extracted a range per worker step with flat memory.
 */

type PdfJs = Awaited<ReturnType<typeof getResolvedPDFJS>>;
type PdfDocument = Awaited<ReturnType<PdfJs["getDocument"]>["promise"]>;
type PdfPage = Awaited<ReturnType<PdfDocument["getPage"]>>;

const LABEL = "PDF";
/** Fewer visible characters than this and a page counts as having no text layer (scans often carry a stray mark or two). */
const MIN_TEXT_LAYER_CHARACTERS = 10;
/** Images smaller than this are rules, bullets and logos, not text to read. */
const MIN_OCR_IMAGE_SIDE = 32;
/** Header and footer detection looks at this many pages at least, even when the range is smaller. */
const MIN_DETECTION_PAGES = 8;
/** A first or last line counts as a running header or footer when it repeats on this share of the pages looked at. */
const REPEATED_SHARE = 0.6;
/** Up to this many lines at each edge of a page can be running matter (a title line above a rule and a page number, say). */
const MAX_EDGE_LINES = 2;
/** Fonts whose names are read (each costs one page's operator list) to tell bold headings from body text. */
const MAX_NAMED_FONTS = 12;
/** Outline entries read; a book's outline has hundreds, a machine-made one could have any number. */
const MAX_OUTLINE_ENTRIES = 5000;

type Line = LayoutLine;

/** A line of OCR text: no position or type, so no layout rule applies to it. */
function ocrLine(text: string): Line {
  return { text, y: 0, size: 0, left: 0, right: 0, font: "", heading: 0 };
}

type OcrPolicy = "never" | "missing-text" | "also-images" | "every-page";

function ocrPolicy(options: ExtractionOptions): OcrPolicy {
  if (options.forceOcr || options.strategy === "ocr_only") return "every-page";
  if (options.strategy === "fast") return "never";
  if ((options.mode === "accurate" || options.strategy === "hi_res") && !options.disableImageExtraction) return "also-images";
  return "missing-text";
}

/**
 * unpdf's build of pdf.js brings its own polyfills for everything it uses beyond Node 20 except
 * ArrayBuffer#transferToFixedLength (Node 21+), which pdf.js calls when it hands a parsed font to
 * the page. Without it, on Node 20, a page's operator list (where its images are found for OCR)
 * silently stops at the first font. A copy does what pdf.js needs (it never reads the old buffer
 * again); Node 22+ and Lambda's Node 24 have the real method and never take this branch.
 */
function polyfillTransferToFixedLength(): void {
  const prototype = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: (length?: number) => ArrayBuffer };
  if (typeof prototype.transferToFixedLength === "function") return;
  Object.defineProperty(ArrayBuffer.prototype, "transferToFixedLength", {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length = this.byteLength) {
      const copy = new ArrayBuffer(length);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return copy;
    },
  });
}

/** The file's two ends, checked before anything reads its body (the stream scan, pdf.js). */
function checkPdfFraming(bytes: Uint8Array): void {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  if (!head.includes("%PDF-")) throw new DocumentExtractionError("the file is not a PDF (it has no %PDF header)");
  // pdf.js rebuilds a damaged cross-reference table by scanning, so a cut-off upload would open and
  // quietly lose its last pages; every complete PDF ends with %%EOF (give or take trailing junk).
  const tail = new TextDecoder("latin1").decode(bytes.subarray(Math.max(0, bytes.length - 2048)));
  if (!tail.includes("%%EOF")) throw new DocumentExtractionError("the PDF file is truncated (it does not end with %%EOF); upload the complete file");
}

async function openPdf(bytes: Uint8Array, limits: ExtractionLimits, ownsBytes = false): Promise<{ pdfjs: PdfJs; pdf: PdfDocument }> {
  checkDeadline(limits, LABEL);
  polyfillTransferToFixedLength();
  const pdfjs = await getResolvedPDFJS();
  const task = pdfjs.getDocument({
    // pdf.js may take ownership of the buffer, so it gets a copy unless the bytes are ours to give
    // (an extraction thread's); a plain Uint8Array, as it refuses a Node Buffer (what a fetched
    // file arrives as), and Buffer#slice would not copy.
    data: ownsBytes && bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes),
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    disableFontFace: true,
    // Larger images are never decoded (checkPdfStreams notes them): their pixels alone would be gigabytes.
    maxImageSize: MAX_IMAGE_PIXELS,
    useSystemFonts: false,
    verbosity: 0,
  });
  try {
    return { pdfjs, pdf: await task.promise };
  } catch (error) {
    await task.destroy().catch(() => undefined);
    const name = (error as { name?: string } | undefined)?.name;
    if (name === "PasswordException") throw new DocumentExtractionError("the PDF is encrypted with a password, so its text cannot be read");
    const message = error instanceof Error ? error.message : String(error);
    throw new DocumentExtractionError(`the PDF file is corrupt and cannot be read (${message})`);
  }
}

async function extract(bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedDocument> {
  const { limits } = options;
  // A file that is not a PDF, or was cut off, is refused before its streams are scanned and inflated.
  checkPdfFraming(bytes);
  // The streams are measured once, by the step that reads the first page: later steps read the same bytes.
  const streamNotes = (options.pageRange?.first ?? 1) === 1 ? checkPdfStreams(bytes, limits, LABEL) : [];
  const { pdfjs, pdf } = await openPdf(bytes, limits, options.ownsBytes);
  try {
    const totalPages = pdf.numPages;
    // A valid PDF may have an empty page tree (`qpdf --empty` makes one); there is nothing to read,
    // and "page 1 cannot be read" would wrongly call the file corrupt.
    if (totalPages === 0) throw new DocumentExtractionError("the PDF has no pages");
    checkPageCount(totalPages, limits, LABEL);
    const first = Math.max(1, Math.min(totalPages, options.pageRange?.first ?? 1));
    const last = Math.max(first, Math.min(totalPages, options.pageRange?.last ?? totalPages));
    const notes = new Notes();
    for (const note of streamNotes) notes.add(note);
    const policy = ocrPolicy(options);
    let language: OcrLanguage | undefined;
    const languageFor = () => {
      if (!language) {
        language = ocrLanguage(options.languageCode);
        if (language.note) notes.add(language.note);
      }
      return language;
    };

    const pages: Line[][] = [];
    /** The first page each font is used on, to read its name from if the type rule needs it. */
    const fontPages = new Map<string, number>();
    let lastRead = first - 1;
    for (let number = first; number <= last; number++) {
      // Past the soft stop, the pages read so far are returned and the caller carries on from the next one.
      if (pages.length > 0 && options.stopAtMs !== undefined && Date.now() >= options.stopAtMs) break;
      checkDeadline(limits, LABEL);
      const page = await readPage(pdf, number);
      try {
        pages.push(await pageLines(pdfjs, page, number, policy, limits, languageFor, notes, fontPages));
      } finally {
        page.cleanup();
      }
      lastRead = number;
    }

    const edges = await runningMatter(pdfjs, pdf, pages, first, lastRead, options, limits);
    const bodies = pages.map((lines, index) => lines.slice(edges.headerLines[index] ?? 0, lines.length - (edges.footerLines[index] ?? 0)));
    if (!(await assignOutlineHeadings(pdf, bodies, first, limits))) {
      const names = await fontNames(pdf, boldCandidateFonts(bodies), fontPages, limits);
      assignHeadingsByType({ pages: bodies, fontName: (font) => names.get(font) });
    }
    const { text, pageOffsets } = renderPages(bodies);
    if (text.trim() === "" && notes.isEmpty()) {
      notes.add(first === lastRead ? `no text was found on page ${first}` : `no text was found on pages ${first}–${lastRead}`);
    }
    return { text, pageOffsets, firstPage: first, lastPage: lastRead, totalPages, notes: notes.list() };
  } finally {
    await pdf.loadingTask.destroy();
  }
}

async function readPage(pdf: PdfDocument, number: number): Promise<PdfPage> {
  try {
    return await pdf.getPage(number);
  } catch (error) {
    throw new DocumentExtractionError(`the PDF file is corrupt: page ${number} cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
}

async function pageLines(
  pdfjs: PdfJs,
  page: PdfPage,
  number: number,
  policy: OcrPolicy,
  limits: ExtractionLimits,
  languageFor: () => OcrLanguage,
  notes: Notes,
  fontPages: Map<string, number>,
): Promise<Line[]> {
  const lines = await textLayerLines(pdfjs, page, true);
  for (const line of lines) if (line.font !== "" && !fontPages.has(line.font)) fontPages.set(line.font, number);
  if (policy === "never") {
    if (visibleCharacters(lines) < MIN_TEXT_LAYER_CHARACTERS) notes.add("no text layer (OCR is off with strategy fast)", number);
    return lines;
  }
  const hasText = visibleCharacters(lines) >= MIN_TEXT_LAYER_CHARACTERS;
  if (hasText && policy === "missing-text") return lines;

  const images = await pageImages(pdfjs, page);
  if (images.length === 0) {
    if (!hasText) notes.add("no text layer and no image to OCR", number);
    else if (policy === "every-page") notes.add("no image to OCR (pages are not rasterised); the text layer was kept", number);
    return lines;
  }
  const ocrLines: Line[] = [];
  for (const image of images) {
    checkDeadline(limits, LABEL);
    try {
      const text = tidyOcrText(await recognize(encodePnm(image), languageFor(), limits));
      for (const line of text.split("\n")) ocrLines.push(ocrLine(line));
    } catch (error) {
      if (error instanceof DocumentExtractionError) throw error;
      const reason = error instanceof OcrUnavailableError ? error.message : `the image could not be read (${error instanceof Error ? error.message : String(error)})`;
      notes.add(`OCR could not run: ${reason}`, number);
    }
  }
  if (policy === "every-page") return ocrLines.length > 0 ? ocrLines : lines;
  if (!hasText) return ocrLines;
  return ocrLines.length > 0 ? [...lines, ocrLine(""), ...ocrLines] : lines;
}

function visibleCharacters(lines: readonly Line[]): number {
  let count = 0;
  for (const line of lines) count += line.text.replace(/\s+/g, "").length;
  return count;
}

interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
  fontName: string;
}

/**
 * Glyph runs in content order, joined into lines where the baseline moves; a line's runs are put in
 * reading order (right-to-left lines too) and spaced where there is a gap.
 */
async function textLayerLines(pdfjs: PdfJs, page: PdfPage, readLigatures: boolean): Promise<Line[]> {
  // pdf.js's own normalisation (ligatures and presentation forms, NFKC) comes after its bidi pass
  // rather than before it, so a ligature the font maps to one presentation-form character keeps
  // its letters in order; multi-letter glyphs are put in order from the drawn glyphs.
  const content = await page.getTextContent({ disableNormalization: true });
  const ligatures = readLigatures && content.items.some((item) => (item as { dir?: string }).dir === "rtl") ? await drawnLigatures(pdfjs, page) : undefined;
  const lines: Line[] = [];
  let runs: LineRun[] = [];
  let y = 0;
  let size = 0;
  let endX = 0;
  let left = Number.POSITIVE_INFINITY;
  let right = 0;
  const fonts = new Map<string, number>();
  const flush = () => {
    const text = pdfjs.normalizeUnicode(lineText(runs, size * 0.15)).replace(/\s+/g, " ").trim();
    if (text !== "") {
      let font = "";
      let most = -1;
      for (const [name, count] of fonts) {
        if (count > most) {
          font = name;
          most = count;
        }
      }
      lines.push({ text, y, size, left, right, font, heading: 0 });
    }
    runs = [];
    size = 0;
    left = Number.POSITIVE_INFINITY;
    right = 0;
    fonts.clear();
  };
  for (const raw of content.items) {
    if (!("str" in raw)) continue;
    const item = raw as TextItem;
    const itemSize = Math.hypot(item.transform[2] ?? 0, item.transform[3] ?? 0) || item.height;
    const itemX = item.transform[4] ?? 0;
    const itemY = item.transform[5] ?? 0;
    if (item.str !== "") {
      if (runs.length > 0 && Math.abs(itemY - y) > Math.max(itemSize, size) * 0.5) flush();
      if (runs.length === 0) y = itemY;
      // Runs drawn one after another with a gap get a space even when the line is read in drawing order.
      const rtl = (raw as { dir?: string }).dir === "rtl";
      runs.push({ text: rtl && ligatures ? ligatures.restore(item.str) : item.str, x: itemX, width: item.width });
      size = Math.max(size, itemSize);
      endX = itemX + item.width;
      left = Math.min(left, itemX);
      right = Math.max(right, endX);
      if (item.str.trim() !== "") fonts.set(item.fontName, (fonts.get(item.fontName) ?? 0) + item.str.length);
    }
    if (item.hasEOL) flush();
  }
  flush();
  return lines;
}

/** The glyphs a page draws, in drawing order, for putting right-to-left ligatures' letters in order. */
async function drawnLigatures(pdfjs: PdfJs, page: PdfPage): Promise<LigatureOrder | undefined> {
  try {
    const operators = await page.getOperatorList();
    const glyphs: string[] = [];
    operators.fnArray.forEach((op, index) => {
      if (op !== pdfjs.OPS.showText && op !== pdfjs.OPS.showSpacedText && op !== pdfjs.OPS.nextLineShowText && op !== pdfjs.OPS.nextLineSetSpacingShowText) return;
      const shown = operators.argsArray[index]?.[op === pdfjs.OPS.nextLineSetSpacingShowText ? 2 : 0];
      if (!Array.isArray(shown)) return;
      for (const glyph of shown) if (glyph && typeof glyph === "object" && typeof glyph.unicode === "string") glyphs.push(glyph.unicode);
    });
    const order = new LigatureOrder(glyphs);
    return order.needed ? order : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The names of the given fonts, which pdf.js only hands over with a page's operator list: each is
 * read from the first page that uses it, a few pages at most.
 */
async function fontNames(pdf: PdfDocument, fonts: ReadonlySet<string>, fontPages: ReadonlyMap<string, number>, limits: ExtractionLimits): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const wanted = [...fonts].filter((font) => fontPages.has(font)).slice(0, MAX_NAMED_FONTS);
  for (const font of wanted) {
    if (names.has(font)) continue;
    checkDeadline(limits, LABEL);
    const page = await readPage(pdf, fontPages.get(font)!);
    try {
      await page.getOperatorList();
      for (const other of wanted) {
        if (names.has(other) || !page.commonObjs.has(other)) continue;
        const loaded = page.commonObjs.get(other) as { name?: string } | undefined;
        if (loaded?.name) names.set(other, loaded.name);
      }
    } catch {
      // A font that cannot be named is taken as regular weight.
    } finally {
      page.cleanup();
    }
  }
  return names;
}

/**
 * Headings from the document's outline (bookmarks): each entry's title is looked for on the page
 * it points to (or the next, where the destination sits just above a page break), and the line or
 * lines found become a heading of the entry's depth. False when the document has no outline.
 */
async function assignOutlineHeadings(pdf: PdfDocument, pages: Line[][], first: number, limits: ExtractionLimits): Promise<boolean> {
  let outline: OutlineItem[] | null;
  try {
    outline = (await pdf.getOutline()) as OutlineItem[] | null;
  } catch {
    return false;
  }
  if (!outline || outline.length === 0) return false;
  const entries: { title: string; level: number; page: number }[] = [];
  const walk = async (items: readonly OutlineItem[], depth: number): Promise<void> => {
    for (const item of items) {
      if (entries.length >= MAX_OUTLINE_ENTRIES) return;
      checkDeadline(limits, LABEL);
      const page = await outlinePage(pdf, item.dest);
      if (page !== null) entries.push({ title: item.title, level: Math.min(6, depth), page });
      if (item.items?.length) await walk(item.items, depth + 1);
    }
  };
  await walk(outline, 1);
  if (entries.length === 0) return false;
  const searchedFrom = new Map<number, number>();
  for (const entry of entries) {
    for (const pageNumber of [entry.page, entry.page + 1]) {
      const lines = pages[pageNumber - first];
      if (!lines) continue;
      const found = findTitleLines(lines, entry.title, searchedFrom.get(pageNumber) ?? 0) ?? findTitleLines(lines, entry.title);
      if (!found) continue;
      const [line, ...rest] = lines.slice(found.index, found.index + found.count);
      line!.text = [line!.text, ...rest.map((other) => other.text)].join(" ");
      line!.heading = entry.level;
      lines.splice(found.index + 1, found.count - 1);
      searchedFrom.set(pageNumber, found.index + 1);
      break;
    }
  }
  return true;
}

interface OutlineItem {
  title: string;
  dest: string | unknown[] | null;
  items?: OutlineItem[];
}

/** The 1-based page an outline destination points to, or null (an action, a broken reference). */
async function outlinePage(pdf: PdfDocument, dest: OutlineItem["dest"]): Promise<number | null> {
  try {
    const explicit = typeof dest === "string" ? await pdf.getDestination(dest) : dest;
    const target = explicit?.[0];
    if (typeof target === "number") return target + 1;
    if (target && typeof target === "object") return (await pdf.getPageIndex(target as Parameters<PdfDocument["getPageIndex"]>[0])) + 1;
  } catch {
    // An entry that points nowhere names no heading.
  }
  return null;
}

/**
 * The pages as Markdown: lines joined into paragraphs (see renderLines); a paragraph that runs over
 * a page break continues on the next page's first line rather than starting a new paragraph, and a
 * word hyphenated over a line end (or a page break) is joined when the document spells it whole.
 */
function renderPages(pages: readonly Line[][]): { text: string; pageOffsets: number[] } {
  const statistics = new WordStatistics();
  for (const lines of pages) for (const line of lines) statistics.add(line.text);
  const writer = new OffsetWriter();
  const pageOffsets: number[] = [];
  /** The last page with text so far, whose end the next page may continue. */
  let previous: { lines: Line[]; index: number } | undefined;
  const rendered: string[] = [];
  const separators: string[] = [];
  for (const lines of pages) {
    let separator = "\n\n";
    const last = previous?.lines[previous.lines.length - 1];
    const firstLine = lines[0];
    if (previous && last && firstLine && continuesAcrossPages(last, firstLine, rightMargin(previous.lines))) {
      const hyphen = lineEndHyphen(last.text, firstLine.text, statistics);
      separator = hyphen === null ? "\n" : "";
      if (hyphen === "word") rendered[previous.index] = rendered[previous.index]!.slice(0, -1);
    }
    const text = renderLines(lines, statistics);
    rendered.push(text);
    separators.push(separator);
    if (text !== "") previous = { lines, index: rendered.length - 1 };
  }
  rendered.forEach((text, index) => pageOffsets.push(writer.append(text, separators[index])));
  return { text: writer.toString(), pageOffsets };
}

/** Where a page's lines end on the right: the margin a full line of its body text reaches. */
function rightMargin(lines: readonly Line[]): number {
  const rights = lines.filter((line) => line.size > 0 && line.heading === 0).map((line) => line.right).sort((a, b) => a - b);
  return rights.length === 0 ? 0 : rights[Math.floor(rights.length * 0.9)]!;
}

/**
 * Lines as Markdown: a blank line where the gap to the previous line is clearly larger than the
 * line spacing (a new paragraph), headings as `#` lines, and a hyphen at a line end removed where
 * it only split a word.
 */
function renderLines(lines: readonly Line[], statistics: WordStatistics): string {
  if (lines.length === 0) return "";
  const out: string[] = [];
  let previous: Line | undefined;
  for (const line of lines) {
    if (previous) {
      const gap = Math.abs(previous.y - line.y);
      const paragraphBreak = line.size === 0 || previous.size === 0 ? line.text === "" || previous.text === "" : gap > Math.max(line.size, previous.size) * 1.6;
      if (paragraphBreak || line.heading > 0 || previous.heading > 0) {
        out.push("\n\n");
      } else {
        const hyphen = lineEndHyphen(previous.text, line.text, statistics);
        if (hyphen === "word") out[out.length - 1] = out[out.length - 1]!.slice(0, -1);
        out.push(hyphen === null ? "\n" : "");
      }
    }
    out.push(line.heading > 0 ? `${"#".repeat(line.heading)} ${line.text}` : line.text);
    previous = line;
  }
  return out.join("").replace(/\n{3,}/g, "\n\n").trim();
}

/**
 * What makes two edge lines "the same running header or footer": the same text, or the same text
 * around a number that moves with the page number ("Page 3 of 10" on page 3, "Page 4 of 10" on page
 * 4, or "12" on page 10 when numbering starts after the front matter). A heading like "Section 4"
 * that happens to repeat its shape on every page does not match, as its number does not follow the page.
 */
function edgeKeys(text: string, pageNumber: number): string[] {
  const keys = [`=${text}`];
  const numbers = text.match(/\d+/g);
  if (!numbers) return keys;
  const shape = text.replace(/\d+/g, "#");
  numbers.forEach((value, position) => keys.push(`${shape}|${position}|${Number(value) - pageNumber}`));
  return keys;
}

interface Edges {
  headerLines: number[];
  footerLines: number[];
}

interface SampledPage {
  number: number;
  lines: Line[];
}

/**
 * Lines at the top or bottom of a page that repeat (page numbers aside) on most pages are running
 * headers and footers. Detection looks at the extracted pages plus, for short ranges, neighbouring
 * pages, so a range of two pages decides like the whole document would.
 */
async function runningMatter(
  pdfjs: PdfJs,
  pdf: PdfDocument,
  pages: Line[][],
  first: number,
  last: number,
  options: ExtractionOptions,
  limits: ExtractionLimits,
): Promise<Edges> {
  const edges: Edges = { headerLines: pages.map(() => 0), footerLines: pages.map(() => 0) };
  const stripHeaders = !options.keepPageheaderInOutput;
  const stripFooters = !options.keepPagefooterInOutput;
  if (!stripHeaders && !stripFooters) return edges;

  const sample: SampledPage[] = pages.map((lines, index) => ({ number: first + index, lines }));
  if (pages.length < MIN_DETECTION_PAGES && pdf.numPages > pages.length) {
    const wanted = Math.min(MIN_DETECTION_PAGES, pdf.numPages) - pages.length;
    const after = Math.min(pdf.numPages - last, Math.max(Math.ceil(wanted / 2), wanted - (first - 1)));
    const before = Math.min(first - 1, wanted - after);
    for (const number of [...range(first - before, first - 1), ...range(last + 1, last + after)]) {
      checkDeadline(limits, LABEL);
      const page = await readPage(pdf, number);
      try {
        sample.push({ number, lines: await textLayerLines(pdfjs, page, false) });
      } finally {
        page.cleanup();
      }
    }
  }
  const withText = sample.filter((page) => page.lines.length > 1);
  if (withText.length < 3) return edges;
  const threshold = Math.max(2, Math.ceil(withText.length * REPEATED_SHARE));
  const repeated = (counts: Map<string, number>, line: Line, pageNumber: number) =>
    edgeKeys(line.text, pageNumber).some((key) => (counts.get(key) ?? 0) >= threshold);

  for (let depth = 0; depth < MAX_EDGE_LINES; depth++) {
    if (stripHeaders) {
      const counts = countKeys(withText.map((page) => [page.lines[depth], page.number] as const));
      pages.forEach((lines, index) => {
        const line = lines[depth];
        if (edges.headerLines[index] === depth && line && lines.length - depth > 1 && repeated(counts, line, first + index)) {
          edges.headerLines[index] = depth + 1;
        }
      });
    }
    if (stripFooters) {
      const counts = countKeys(withText.map((page) => [page.lines[page.lines.length - 1 - depth], page.number] as const));
      pages.forEach((lines, index) => {
        const line = lines[lines.length - 1 - depth];
        const remaining = lines.length - depth - (edges.headerLines[index] ?? 0);
        if (edges.footerLines[index] === depth && line && remaining > 1 && repeated(counts, line, first + index)) {
          edges.footerLines[index] = depth + 1;
        }
      });
    }
  }
  stripPageLabels(pages, first, withText, threshold, edges, stripHeaders, stripFooters);
  return edges;
}

/** A page number at the start or end of a short line ("17", "Chapter 4: Function reference 17", "16 GNU Libtasn1"). */
function edgeNumber(text: string): number | undefined {
  if (text.length > 100) return undefined;
  const match = /^(\d{1,5})(?:\s|$)/.exec(text) ?? /\s(\d{1,5})$/.exec(text);
  return match ? Number(match[1]) : undefined;
}

const ROMAN_PAGE_NUMBER = /^[ivxlc]{1,6}$/;

/**
 * Books put the page number in the running header, beside text that changes with the chapter
 * ("Chapter 2: ASN.1 structure handling 3" on odd pages, "4 GNU Libtasn1 API Reference Manual" on
 * even ones), and alone at the foot of a chapter's first page, so no one line repeats on most
 * pages. What repeats is the number: when most pages have an edge line starting or ending with
 * their page number (give or take a constant, as front matter shifts it), every edge line that
 * does is running matter, as is a lone roman numeral numbering the front matter.
 */
function stripPageLabels(pages: readonly Line[][], first: number, sample: readonly SampledPage[], threshold: number, edges: Edges, stripHeaders: boolean, stripFooters: boolean): void {
  const pagesByOffset = new Map<number, Set<number>>();
  for (const page of sample) {
    const edgeLines = [...page.lines.slice(0, MAX_EDGE_LINES), ...page.lines.slice(-MAX_EDGE_LINES)];
    for (const line of edgeLines) {
      const number = edgeNumber(line.text);
      if (number === undefined) continue;
      const offset = number - page.number;
      const numbered = pagesByOffset.get(offset) ?? new Set<number>();
      numbered.add(page.number);
      pagesByOffset.set(offset, numbered);
    }
  }
  let offset: number | undefined;
  let most = 0;
  for (const [candidate, numbered] of pagesByOffset) {
    if (numbered.size > most) {
      offset = candidate;
      most = numbered.size;
    }
  }
  // Running heads are set no larger than the text; a chapter title that starts with its number, on
  // the page that number happens to label, is larger.
  const body = bodySize(sample.flatMap((page) => page.lines));
  const labelled = (line: Line | undefined, pageNumber: number) =>
    line !== undefined &&
    line.size <= body * 1.05 &&
    (ROMAN_PAGE_NUMBER.test(line.text) || (offset !== undefined && most >= threshold && edgeNumber(line.text) === pageNumber + offset));
  pages.forEach((lines, index) => {
    const pageNumber = first + index;
    for (let depth = 0; depth < MAX_EDGE_LINES; depth++) {
      if (stripHeaders && edges.headerLines[index] === depth && lines.length - depth > 1 && labelled(lines[depth], pageNumber)) edges.headerLines[index] = depth + 1;
      const footer = lines.length - 1 - depth;
      const remaining = lines.length - depth - (edges.headerLines[index] ?? 0);
      if (stripFooters && edges.footerLines[index] === depth && remaining > 1 && labelled(lines[footer], pageNumber)) edges.footerLines[index] = depth + 1;
    }
  });
}

function countKeys(lines: readonly (readonly [Line | undefined, number])[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [line, pageNumber] of lines) {
    if (!line) continue;
    for (const key of edgeKeys(line.text, pageNumber)) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function range(from: number, to: number): number[] {
  const numbers: number[] = [];
  for (let number = from; number <= to; number++) numbers.push(number);
  return numbers;
}

/**
 * The images a page paints, decoded to raw pixels by pdf.js itself (it decodes JPEG, JBIG2, CCITT
 * and Flate images without a canvas), ready for OCR.
 */
async function pageImages(pdfjs: PdfJs, page: PdfPage): Promise<RawImage[]> {
  const operators = await page.getOperatorList();
  const { OPS, ImageKind } = pdfjs;
  const images: RawImage[] = [];
  for (let index = 0; index < operators.fnArray.length; index++) {
    const op = operators.fnArray[index];
    let image: PdfImage | undefined;
    if (op === OPS.paintImageXObject) {
      const key = operators.argsArray[index][0] as string;
      image = await new Promise<PdfImage | undefined>((resolve) => {
        const store = key.startsWith("g_") ? page.commonObjs : page.objs;
        store.get(key, (value: unknown) => resolve(value as PdfImage | undefined));
      });
    } else if (op === OPS.paintInlineImageXObject) {
      image = operators.argsArray[index][0] as PdfImage;
    }
    if (!image?.data || image.width < MIN_OCR_IMAGE_SIDE || image.height < MIN_OCR_IMAGE_SIDE) continue;
    const raw = toRawImage(image, ImageKind);
    if (raw) images.push(raw);
  }
  return images;
}

interface PdfImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

function toRawImage(image: PdfImage, kinds: PdfJs["ImageKind"]): RawImage | undefined {
  const { width, height, data } = image;
  if (!data) return undefined;
  if (image.kind === kinds.GRAYSCALE_1BPP) {
    // Rows padded to whole bytes; pdf.js has already applied the image's Decode array, so 1 is white.
    const rowBytes = (width + 7) >> 3;
    const gray = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const bit = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1;
        gray[y * width + x] = bit ? 255 : 0;
      }
    }
    return { width, height, channels: 1, data: gray };
  }
  const channels = data.length / (width * height);
  if (channels === 1 || channels === 3 || channels === 4) return { width, height, channels, data };
  return undefined;
}

/** Notes grouped by reason, so a hundred scanned pages give one line, not a hundred. */
class Notes {
  private readonly byReason = new Map<string, number[]>();

  add(reason: string, page?: number): void {
    const pages = this.byReason.get(reason) ?? [];
    if (page !== undefined) pages.push(page);
    this.byReason.set(reason, pages);
  }

  isEmpty(): boolean {
    return this.byReason.size === 0;
  }

  list(): string[] {
    return [...this.byReason].map(([reason, pages]) =>
      pages.length === 0 ? reason : `${pages.length === 1 ? "page" : "pages"} ${describePages(pages)}: ${reason}`,
    );
  }
}

function describePages(pages: readonly number[]): string {
  const spans: string[] = [];
  let start = pages[0]!;
  let end = start;
  for (const page of [...pages.slice(1), Number.NaN]) {
    if (page === end + 1) {
      end = page;
      continue;
    }
    spans.push(start === end ? String(start) : `${start}–${end}`);
    start = page;
    end = page;
  }
  return spans.join(", ");
}

const extractor: FormatExtractor = { extract };

export function create(): FormatExtractor {
  return extractor;
}
