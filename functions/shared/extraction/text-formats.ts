import { parse as parseCsv } from "csv-parse/sync";
import { Parser } from "htmlparser2";
import { type FileFormat, fileTypeOf } from "./file-types.ts";
import type { FormatExtractor } from "./types.ts";

/**
 * Turns uploaded bytes into the text the chunker splits. Every converter keeps the source's own
 * structure visible in plain characters (Markdown headings, one JSON field per line, one CSV row per
 * paragraph) because the chunker splits at blank lines first, then at line breaks: whatever the
 * converter puts on one line or in one paragraph is what tends to stay together in one chunk.
 */

/** The formats read here, as text; the others are documents read by their own modules under formats/. */
export const TEXT_FORMATS = ["text", "markdown", "html", "json", "jsonl", "csv", "tsv"] as const satisfies readonly FileFormat[];
export type TextFormat = (typeof TEXT_FORMATS)[number];

export function isTextFormat(format: FileFormat): format is TextFormat {
  return (TEXT_FORMATS as readonly FileFormat[]).includes(format);
}

export interface ParsedDocument {
  text: string;
  format: FileFormat;
}

/** A problem with the file itself; the message is shown to the user as the document's `error`. */
export class DocumentParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DocumentParseError";
  }
}

/** Empty or whitespace-only files convert to empty text; deciding what that means is the caller's job. */
export function parseDocument(bytes: Uint8Array, format: TextFormat): ParsedDocument {
  const text = decodeText(bytes);
  try {
    return { text: convert(text, format), format };
  } catch (error) {
    // The converters hold no recursion, so a RangeError can only be a string or array outgrowing
    // what V8 allows: the input is too big to convert, not a bug to report as a 500.
    if (error instanceof RangeError) {
      throw new DocumentParseError(`the ${fileTypeOf(format).label} file is too large to convert to text`);
    }
    throw error;
  }
}

/** The extractor of one text format (formats/<format>.ts exports it). */
export function textExtractor(format: TextFormat): FormatExtractor {
  return {
    extract: async (bytes) => ({ text: parseDocument(bytes, format).text, notes: [] }),
  };
}

/** TEXT payloads arrive as a string: kept as written, read as Markdown (plain text is valid Markdown). */
export function parseText(text: string): ParsedDocument {
  return { text: normalizeNewlines(text.startsWith("\uFEFF") ? text.slice(1) : text), format: "markdown" };
}

function convert(text: string, format: TextFormat): string {
  switch (format) {
    case "text":
    case "markdown":
      return text;
    case "html":
      return htmlToText(text);
    case "json":
      return jsonToText(text);
    case "jsonl":
      return jsonLinesToText(text);
    case "csv":
      return delimitedToText(text, sniffDelimiter(text), "CSV");
    case "tsv":
      return delimitedToText(text, "\t", "TSV");
  }
}

function normalizeNewlines(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

/** As much as git looks at to call a file binary. */
const SNIFF_BYTES = 8192;
const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Lenient = new TextDecoder("utf-8", { ignoreBOM: true });
const utf16le = new TextDecoder("utf-16le", { ignoreBOM: true });

const notText = (reason: string) => new DocumentParseError(`the file is not text: ${reason}`);

/** Formats people try to upload by mistake, named so the error tells them what they sent. */
const BINARY_SIGNATURES: readonly (readonly [readonly number[], string])[] = [
  [[0x25, 0x50, 0x44, 0x46, 0x2d], "it is a PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "it is a ZIP archive or an Office document (.docx, .xlsx, .pptx)"],
  [[0x50, 0x4b, 0x05, 0x06], "it is a ZIP archive"],
  [[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], "it is a legacy Office document (.doc, .xls, .ppt)"],
  [[0x89, 0x50, 0x4e, 0x47], "it is a PNG image"],
  [[0xff, 0xd8, 0xff], "it is a JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "it is a GIF image"],
  [[0x1f, 0x8b], "it is a gzip archive"],
];

function startsWithBytes(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, index) => bytes[index] === byte);
}

function decodeText(bytes: Uint8Array): string {
  if (startsWithBytes(bytes, [0xff, 0xfe, 0, 0]) || startsWithBytes(bytes, [0, 0, 0xfe, 0xff])) {
    throw notText("it is UTF-32, which is not supported; save it as UTF-8");
  }
  if (startsWithBytes(bytes, [0xff, 0xfe])) return normalizeNewlines(utf16le.decode(bytes.subarray(2)));
  if (startsWithBytes(bytes, [0xfe, 0xff])) return normalizeNewlines(decodeUtf16be(bytes.subarray(2)));

  const body = startsWithBytes(bytes, [0xef, 0xbb, 0xbf]) ? bytes.subarray(3) : bytes;
  for (const [signature, reason] of BINARY_SIGNATURES) {
    if (startsWithBytes(body, signature)) throw notText(reason);
  }
  const head = body.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) {
    throw notText(
      looksLikeUtf16WithoutBom(head)
        ? "it looks like UTF-16 without a byte-order mark; save it as UTF-8"
        : "it contains binary data (NUL bytes)",
    );
  }
  try {
    return normalizeNewlines(utf8Strict.decode(body));
  } catch {
    return normalizeNewlines(decodeImperfectText(body));
  }
}

function decodeUtf16be(bytes: Uint8Array): string {
  // Swapped by hand: Node builds without full ICU only ship the little-endian decoder.
  const swapped = new Uint8Array(bytes.length - (bytes.length % 2));
  for (let index = 0; index < swapped.length; index += 2) {
    swapped[index] = bytes[index + 1]!;
    swapped[index + 1] = bytes[index]!;
  }
  return utf16le.decode(swapped);
}

/** ASCII text in UTF-16 has a NUL in every other byte, always on the same side. */
function looksLikeUtf16WithoutBom(head: Uint8Array): boolean {
  let evenZeros = 0;
  let oddZeros = 0;
  for (let index = 0; index < head.length; index++) {
    if (head[index] === 0) {
      if (index % 2 === 0) evenZeros++;
      else oddZeros++;
    }
  }
  const pairs = head.length / 2;
  return Math.max(evenZeros, oddZeros) > pairs * 0.3 && Math.min(evenZeros, oddZeros) < pairs * 0.02;
}

/**
 * Text that is not valid UTF-8 is one of three things. With no valid multi-byte sequence at all and
 * the look of Western text it is a legacy single-byte file (Excel's "CSV" export on Windows writes
 * Windows-1252), decoded as such. With a few bad bytes among valid UTF-8 it is UTF-8 with damage,
 * decoded with replacement characters. Anything else is binary or an encoding we cannot guess, and
 * decoding it would index garbage.
 */
function decodeImperfectText(bytes: Uint8Array): string {
  const { invalid, multiByte } = scanUtf8(bytes);
  if (multiByte === 0 && looksLikeWindows1252(bytes)) return decodeWindows1252(bytes);
  if (invalid <= Math.max(8, bytes.length / 1000)) return utf8Lenient.decode(bytes);
  throw notText("it is not valid UTF-8 (it may be binary or in a legacy encoding); save it as UTF-8 text");
}

function scanUtf8(bytes: Uint8Array): { invalid: number; multiByte: number } {
  let invalid = 0;
  let multiByte = 0;
  let index = 0;
  const continuation = (offset: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[index + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  while (index < bytes.length) {
    const lead = bytes[index]!;
    let length = 0;
    if (lead < 0x80) length = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) length = continuation(1) ? 2 : 0;
    else if (lead >= 0xe0 && lead <= 0xef) {
      const low = lead === 0xe0 ? 0xa0 : 0x80;
      const high = lead === 0xed ? 0x9f : 0xbf;
      length = continuation(1, low, high) && continuation(2) ? 3 : 0;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      const low = lead === 0xf0 ? 0x90 : 0x80;
      const high = lead === 0xf4 ? 0x8f : 0xbf;
      length = continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
    }
    if (length === 0) {
      invalid++;
      index++;
    } else {
      if (length > 1) multiByte++;
      index += length;
    }
  }
  return { invalid, multiByte };
}

/** Bytes Windows-1252 leaves undefined; binary data has them, Western text never does. */
const WINDOWS_1252_UNDEFINED = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);
const WINDOWS_1252_C1 = [
  0x20ac, 0xfffd, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0xfffd,
  0x017d, 0xfffd, 0xfffd, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0xfffd, 0x017e, 0x0178,
];

/**
 * Western European text has its accented letters scattered among ASCII ones. Cyrillic, Greek or
 * CJK legacy encodings put non-ASCII bytes in long runs; read as Windows-1252 they would become
 * plausible-looking garbage, so they are refused instead.
 */
function looksLikeWindows1252(bytes: Uint8Array): boolean {
  let high = 0;
  let inLongRuns = 0;
  let run = 0;
  const endRun = () => {
    if (run >= 3) inLongRuns += run;
    run = 0;
  };
  for (const byte of bytes) {
    if (byte >= 0x80) {
      if (WINDOWS_1252_UNDEFINED.has(byte)) return false;
      high++;
      run++;
      continue;
    }
    endRun();
    const isControl = (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) || byte === 0x7f;
    if (isControl) return false;
  }
  endRun();
  return high > 0 && high <= bytes.length * 0.3 && inLongRuns <= high * 0.2;
}

function decodeWindows1252(bytes: Uint8Array): string {
  const pieces: string[] = [];
  const codes = new Uint16Array(Math.min(bytes.length, 8192));
  for (let start = 0; start < bytes.length; start += codes.length) {
    const end = Math.min(start + codes.length, bytes.length);
    for (let index = start; index < end; index++) {
      const byte = bytes[index]!;
      codes[index - start] = byte >= 0x80 && byte < 0xa0 ? WINDOWS_1252_C1[byte - 0x80]! : byte;
    }
    pieces.push(String.fromCharCode(...codes.subarray(0, end - start)));
  }
  return pieces.join("");
}

/** Elements whose content is never reading matter. */
const SKIPPED_ELEMENTS = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "iframe",
  "object",
  "canvas",
  "select",
  "datalist",
  "textarea",
]);

/** Block elements and how many line breaks separate them from their neighbours. */
const PARAGRAPH_ELEMENTS = ["p", "section", "article", "header", "footer", "main", "aside", "nav", "figure"];
const MORE_PARAGRAPH_ELEMENTS = ["form", "fieldset", "details", "address", "dl", "hgroup", "search"];
const LINE_ELEMENTS = ["div", "dt", "dd", "figcaption", "summary", "caption", "legend", "center", "tr"];
const BLOCK_BREAKS = new Map<string, number>([
  ...[...PARAGRAPH_ELEMENTS, ...MORE_PARAGRAPH_ELEMENTS].map((name) => [name, 2] as const),
  ...LINE_ELEMENTS.map((name) => [name, 1] as const),
]);

const MAX_HTML_DEPTH = 4096;
const MAX_CAPTURE_DEPTH = 32;
const MAX_LIST_INDENT = 8;

/** HTML's own whitespace, plus the no-break space that only exists to keep words apart. */
const HTML_WHITESPACE = /[ \t\n\r\f\u00a0]+/g;

/**
 * Text written so far, with the spacing it still owes. Line breaks and spaces are requested rather
 * than written, and only materialise when more content follows: adjacent blocks then never stack
 * more than one blank line, and nothing dangles at the end of a paragraph.
 */
class Sink {
  private readonly parts: string[] = [];
  private started = false;
  private trailingNewlines = 0;
  private endsWithSpace = false;
  private pendingBreak = 0;
  private pendingSpace = false;
  private afterMarker = false;
  private undoMarker: (() => void) | undefined;
  /** Spacing requested before the first content: the enclosing sink owes it, not this one. */
  leadingBreak = 0;
  leadingSpace = false;

  get trailingBreak() {
    return this.pendingBreak;
  }
  get trailingSpace() {
    return this.pendingSpace;
  }

  space(): void {
    if (!this.started) this.leadingSpace = true;
    else if (!this.endsWithSpace) this.pendingSpace = true;
  }

  /** `force`: a list item's own break, which the "first block right after a bullet" rule must not eat. */
  lineBreaks(count: number, force = false): void {
    if (this.afterMarker && !force) return;
    if (force) this.afterMarker = false;
    if (!this.started) this.leadingBreak = Math.max(this.leadingBreak, count);
    else this.pendingBreak = Math.max(this.pendingBreak, count);
  }

  /** `<br>`: one more line break each time, but never more than a blank line. */
  br(): void {
    if (this.afterMarker) return;
    if (!this.started) this.leadingBreak = Math.min(2, this.leadingBreak + 1);
    else this.pendingBreak = Math.min(2, Math.max(this.pendingBreak, this.trailingNewlines) + 1);
  }

  write(text: string): void {
    if (text === "") return;
    if (this.started) {
      const missingNewlines = this.pendingBreak - this.trailingNewlines;
      if (missingNewlines > 0) this.parts.push("\n".repeat(missingNewlines));
      else if (this.pendingSpace && !this.endsWithSpace) this.parts.push(" ");
    }
    this.started = true;
    this.parts.push(text);
    this.pendingBreak = 0;
    this.pendingSpace = false;
    this.afterMarker = false;
    let newlines = 0;
    while (newlines < text.length && text.charCodeAt(text.length - 1 - newlines) === 10) newlines++;
    this.trailingNewlines = newlines === text.length ? this.trailingNewlines + newlines : newlines;
    this.endsWithSpace = /\s$/.test(text);
  }

  /** A list bullet: the block that opens the item belongs on the bullet's line. */
  marker(text: string): void {
    const { started, trailingNewlines, endsWithSpace, pendingBreak, pendingSpace } = this;
    const partCount = this.parts.length;
    this.write(text);
    this.afterMarker = true;
    this.undoMarker = () => {
      this.parts.length = partCount;
      this.started = started;
      this.trailingNewlines = trailingNewlines;
      this.endsWithSpace = endsWithSpace;
      this.pendingBreak = pendingBreak;
      this.pendingSpace = pendingSpace;
      this.afterMarker = false;
    };
  }

  /** An item that stayed empty leaves no bare bullet behind. */
  retractEmptyMarker(): void {
    if (this.afterMarker) this.undoMarker?.();
    this.undoMarker = undefined;
  }

  /** Preformatted text, kept byte for byte. */
  raw(text: string): void {
    this.started = true;
    this.parts.push(text);
  }

  toString(): string {
    return this.parts.join("");
  }
}

interface Frame {
  name: string;
  close?: () => void;
}

interface TableRow {
  cells: string[];
  header: boolean;
  onlyHeaderCells: boolean;
}

interface TableState {
  rows: TableRow[];
  inHead: boolean;
}

/**
 * Streams htmlparser2's events into Markdown-like text. Streaming (rather than walking a DOM) keeps
 * the converter free of recursion, so a page nested a hundred thousand levels deep converts like any
 * other. htmlparser2 closes every element it opens, implied closes included, so `frames` mirrors its
 * element stack (see `close` for the one exception).
 */
class HtmlConverter {
  private readonly frames: Frame[] = [];
  private readonly sinks: Sink[] = [new Sink()];
  private skipping = false;
  private preDepth = 0;
  private preLanguage = "";
  private itemDepth = 0;
  private titleParts: string[] | undefined;
  private title: string | undefined;
  private readonly lists: { ordered: boolean; next: number; type: string }[] = [];
  private readonly tables: TableState[] = [];

  private get sink(): Sink {
    return this.sinks[this.sinks.length - 1]!;
  }

  result(): string {
    const body = this.sinks[0]!.toString();
    if (!this.title) return body;
    const heading = `# ${this.title}`;
    if (body === heading || body.startsWith(`${heading}\n`)) return body;
    return body ? `${heading}\n\n${body}` : heading;
  }

  open(name: string, attribs: Record<string, string>): void {
    // htmlparser2 keeps its element stack with unshift/shift, so every tag costs time proportional to
    // the nesting depth: unbounded depth (thousands of unclosed tags) would turn quadratic.
    if (this.frames.length >= MAX_HTML_DEPTH) {
      throw new DocumentParseError(`the HTML nests elements more than ${MAX_HTML_DEPTH} levels deep`);
    }
    const frame: Frame = { name };
    this.frames.push(frame);
    if (this.skipping || this.titleParts) return;
    if (SKIPPED_ELEMENTS.has(name)) {
      this.skipping = true;
      frame.close = () => (this.skipping = false);
      return;
    }
    if (this.preDepth > 0) {
      if (name === "br") this.sink.raw("\n");
      if (name === "code" && !this.preLanguage) this.preLanguage = languageOf(attribs.class);
      return;
    }
    const sink = this.sink;
    switch (name) {
      case "title":
        if (this.title === undefined) {
          this.titleParts = [];
          frame.close = () => {
            this.title = (this.titleParts ?? []).join("").replace(HTML_WHITESPACE, " ").trim();
            this.titleParts = undefined;
          };
        } else {
          this.skipping = true;
          frame.close = () => (this.skipping = false);
        }
        return;
      case "br":
        sink.br();
        return;
      case "hr":
        sink.lineBreaks(2);
        sink.write("---");
        sink.lineBreaks(2);
        return;
      case "img": {
        const alt = (attribs.alt ?? "").replace(HTML_WHITESPACE, " ").trim();
        if (alt) {
          sink.space();
          sink.write(alt);
          sink.space();
        }
        return;
      }
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6": {
        const hashes = "#".repeat(Number(name[1]));
        this.capture(frame, (text, parent) => {
          const line = text.replace(/\s+/g, " ").trim();
          if (!line) return;
          parent.lineBreaks(2);
          parent.write(`${hashes} ${line}`);
          parent.lineBreaks(2);
        });
        return;
      }
      case "ul":
      case "ol":
      case "menu": {
        const breaks = this.lists.length === 0 ? 2 : 1;
        sink.lineBreaks(breaks);
        const start = Number.parseInt(attribs.start ?? "", 10);
        const type = /^[aAiI]$/.test(attribs.type ?? "") ? attribs.type! : "1";
        this.lists.push({ ordered: name === "ol", next: Number.isFinite(start) ? start : 1, type });
        frame.close = () => {
          this.lists.pop();
          this.sink.lineBreaks(breaks);
        };
        return;
      }
      case "li": {
        const list = this.lists[this.lists.length - 1];
        const indent = "  ".repeat(Math.min(MAX_LIST_INDENT, Math.max(0, this.lists.length - 1)));
        sink.lineBreaks(1, true);
        // <li value> renumbers the list from this item on, as browsers do.
        const value = Number.parseInt(attribs.value ?? "", 10);
        if (list?.ordered && Number.isFinite(value)) list.next = value;
        sink.marker(`${indent}${list?.ordered ? `${listLabel(list.next++, list.type)}.` : "-"} `);
        this.itemDepth++;
        frame.close = () => {
          this.itemDepth--;
          this.sink.retractEmptyMarker();
          this.sink.lineBreaks(1, true);
        };
        return;
      }
      case "pre": {
        sink.lineBreaks(2);
        this.preDepth++;
        this.preLanguage = languageOf(attribs.class);
        this.sinks.push(new Sink());
        frame.close = () => {
          this.preDepth--;
          const code = this.sinks.pop()!.toString().replace(/^\n/, "").trimEnd();
          if (!code.trim()) return;
          const fence = fenceFor(code);
          const parent = this.sink;
          parent.lineBreaks(2);
          parent.write(`${fence}${this.preLanguage}\n${code}\n${fence}`);
          parent.lineBreaks(2);
        };
        return;
      }
      case "code":
        this.capture(frame, (text, parent) => parent.write(inlineCode(text.trim())));
        return;
      case "a": {
        const href = (attribs.href ?? "").trim();
        this.capture(frame, (text, parent) => parent.write(renderLink(text.trim(), href)));
        return;
      }
      case "blockquote":
        sink.lineBreaks(2);
        this.capture(frame, (text, parent) => {
          const quoted = text.trim();
          if (!quoted) return;
          parent.lineBreaks(2);
          parent.write(
            quoted
              .split("\n")
              .map((line) => (line ? `> ${line}` : ">"))
              .join("\n"),
          );
          parent.lineBreaks(2);
        });
        return;
      case "table": {
        const table: TableState = { rows: [], inHead: false };
        this.tables.push(table);
        sink.lineBreaks(2);
        frame.close = () => {
          this.tables.pop();
          const rendered = renderTable(table.rows);
          const parent = this.sink;
          parent.lineBreaks(2);
          parent.write(rendered);
          parent.lineBreaks(2);
        };
        return;
      }
    }
    const table = this.tables[this.tables.length - 1];
    if (table && (name === "thead" || name === "tr" || name === "td" || name === "th")) {
      this.openTablePart(name, table, frame);
      return;
    }
    if (name === "td" || name === "th") {
      sink.space();
      frame.close = () => this.sink.space();
      return;
    }
    // Paragraphs inside a list item stay tight, or every bullet would become its own chunk-sized island.
    const breaks = this.itemDepth > 0 ? Math.min(1, BLOCK_BREAKS.get(name) ?? 0) : BLOCK_BREAKS.get(name);
    if (breaks) {
      sink.lineBreaks(breaks);
      frame.close = () => this.sink.lineBreaks(breaks);
    }
  }

  private openTablePart(name: string, table: TableState, frame: Frame): void {
    if (name === "thead") {
      table.inHead = true;
      frame.close = () => (table.inHead = false);
      return;
    }
    if (name === "tr") {
      table.rows.push({ cells: [], header: table.inHead, onlyHeaderCells: true });
      return;
    }
    let row = table.rows[table.rows.length - 1];
    if (!row) {
      row = { cells: [], header: table.inHead, onlyHeaderCells: true };
      table.rows.push(row);
    }
    const cellRow = row;
    this.capture(frame, (text) => {
      cellRow.cells.push(text.trim());
      if (name === "td") cellRow.onlyHeaderCells = false;
    });
  }

  close(name: string): void {
    let frame = this.frames.pop();
    // htmlparser2 can report the close of a tag it never opened (an unfinished `<tag` at the very
    // end of the input); that must not unwind the elements that are really open.
    if (frame && frame.name !== name) {
      if (!this.frames.some((open) => open.name === name)) {
        this.frames.push(frame);
        return;
      }
      while (frame && frame.name !== name) {
        frame.close?.();
        frame = this.frames.pop();
      }
    }
    frame?.close?.();
  }

  text(data: string): void {
    if (this.titleParts) {
      this.titleParts.push(data);
      return;
    }
    if (this.skipping) return;
    if (this.preDepth > 0) {
      this.sink.raw(data);
      return;
    }
    let text = data.replace(HTML_WHITESPACE, " ");
    if (text === "") return;
    const sink = this.sink;
    if (text.startsWith(" ")) {
      sink.space();
      text = text.slice(1);
    }
    const trailingSpace = text.endsWith(" ");
    if (trailingSpace) text = text.slice(0, -1);
    sink.write(text);
    if (trailingSpace) sink.space();
  }

  /** Collects an element's text in its own sink, for rendering once the element is complete. */
  private capture(frame: Frame, render: (text: string, parent: Sink) => void): void {
    // Every capture copies its text into the enclosing one; past this depth the element renders as
    // plain inline content, so hostile nesting cannot multiply the work.
    if (this.sinks.length > MAX_CAPTURE_DEPTH) return;
    this.sinks.push(new Sink());
    frame.close = () => {
      const child = this.sinks.pop()!;
      const parent = this.sink;
      if (child.leadingBreak) parent.lineBreaks(child.leadingBreak);
      else if (child.leadingSpace) parent.space();
      render(child.toString(), parent);
      if (child.trailingBreak) parent.lineBreaks(child.trailingBreak);
      else if (child.trailingSpace) parent.space();
    };
  }
}

function htmlToText(html: string): string {
  const converter = new HtmlConverter();
  const parser = new Parser(
    {
      onopentag: (name, attribs) => converter.open(name, attribs),
      onclosetag: (name) => converter.close(name),
      ontext: (data) => converter.text(data),
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return converter.result();
}

/** An ordered list's label in its `type`: 3 is "3", "c", "C", "iii" or "III". */
function listLabel(number: number, type: string): string {
  if (type === "1" || number < 1 || number > 3999) return String(number);
  if (type === "a" || type === "A") {
    let label = "";
    for (let rest = number; rest > 0; rest = Math.floor((rest - 1) / 26)) label = String.fromCharCode(97 + ((rest - 1) % 26)) + label;
    return type === "A" ? label.toUpperCase() : label;
  }
  const numerals: [number, string][] = [[1000, "m"], [900, "cm"], [500, "d"], [400, "cd"], [100, "c"], [90, "xc"], [50, "l"], [40, "xl"], [10, "x"], [9, "ix"], [5, "v"], [4, "iv"], [1, "i"]];
  let roman = "";
  let rest = number;
  for (const [value, numeral] of numerals) {
    while (rest >= value) {
      roman += numeral;
      rest -= value;
    }
  }
  return type === "I" ? roman.toUpperCase() : roman;
}

function languageOf(className: string | undefined): string {
  return /(?:^|\s)lang(?:uage)?-([\w#+.-]+)/.exec(className ?? "")?.[1] ?? "";
}

/** A fence longer than any backtick run inside, so code containing ``` cannot end its own block. */
function fenceFor(code: string): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  return "`".repeat(Math.max(3, longest + 1));
}

function inlineCode(code: string): string {
  if (!code) return "";
  return code.includes("`") ? `\`\` ${code} \`\`` : `\`${code}\``;
}

/** Links that lead nowhere a reader could follow (in-page anchors, scripts) keep only their text. */
function renderLink(label: string, href: string): string {
  if (!label) return "";
  if (!href || href.startsWith("#") || /^(?:javascript|data|vbscript):/i.test(href)) return label;
  if (label === href || label === href.replace(/^(?:mailto|tel):/i, "")) return label;
  if (label.includes("\n")) return `${label} (${href})`;
  return `[${label}](${href.replace(/ /g, "%20")})`;
}

/**
 * Data tables become Markdown tables, one row per line. Tables used for page layout (one column, or
 * cells holding whole paragraphs) would turn into a few enormous rows, so their cells become plain
 * paragraphs instead.
 */
function renderTable(rows: readonly TableRow[]): string {
  const kept = rows.filter((row) => row.cells.some((cell) => cell !== ""));
  const width = Math.max(0, ...kept.map((row) => row.cells.length));
  const isGrid = width >= 2 && kept.every((row) => row.cells.every((cell) => !cell.includes("\n\n")));
  if (!isGrid) return kept.flatMap((row) => row.cells.filter((cell) => cell !== "")).join("\n\n");
  const lines: string[] = [];
  kept.forEach((row, index) => {
    const cells = Array.from({ length: width }, (_, column) =>
      (row.cells[column] ?? "").replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|"),
    );
    lines.push(`| ${cells.join(" | ")} |`);
    if (index === 0 && (row.header || row.onlyHeaderCells)) lines.push(`|${" --- |".repeat(width)}`);
  });
  return lines.join("\n");
}

/** Beyond this the data is machine-made or hostile; real documents stay far below it. */
const MAX_JSON_DEPTH = 512;
/** Deeper levels stop indenting, so pathological nesting cannot multiply the output size. */
const MAX_INDENT_LEVELS = 20;
/** Arrays of plain values up to this width stay on one line, as `"tags": ["a", "b"]`. */
const INLINE_ARRAY_WIDTH = 80;
const NEWLINE_INDENTS = Array.from({ length: MAX_INDENT_LEVELS + 1 }, (_, level) => `\n${"  ".repeat(level)}`);
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;

class JsonSyntaxError extends Error {
  constructor(
    readonly index: number,
    reason: string,
  ) {
    super(reason);
  }
}

interface JsonContainer {
  isObject: boolean;
  /** Index in the output of the opening bracket. */
  start: number;
  /** The plain values of an array while it could still be written on one line. */
  inline: string[] | null;
  inlineWidth: number;
}

/** What the JSON grammar allows next. */
const Expect = { Value: 0, AfterValue: 1, FirstKey: 2, Key: 3, Colon: 4, FirstItem: 5, Item: 6 } as const;
type Expect = (typeof Expect)[keyof typeof Expect];

/**
 * Re-indents JSON without parsing it into objects: numbers, key order and duplicate keys stay as
 * written (JSON.parse would round 64-bit ids and move integer-like keys first), and the explicit
 * stack keeps deep nesting from overflowing the call stack.
 */
function formatJson(source: string, separateTopLevelItems: boolean): string {
  const out: string[] = [];
  const stack: JsonContainer[] = [];
  const length = source.length;
  let index = 0;
  let expect: Expect = Expect.Value;
  const newline = (depth: number) => NEWLINE_INDENTS[Math.min(depth, MAX_INDENT_LEVELS)]!;
  const unexpected = (what: string) => new JsonSyntaxError(index, `${what}, found ${describeChar(source, index)}`);

  for (;;) {
    while (index < length) {
      const code = source.charCodeAt(index);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
      index++;
    }
    if (index >= length) {
      if (expect === Expect.AfterValue && stack.length === 0) break;
      throw new JsonSyntaxError(index, stack.length ? "the JSON ends before it is complete" : "there is no JSON value");
    }
    const code = source.charCodeAt(index);
    const top = stack[stack.length - 1];

    switch (expect) {
      case Expect.FirstKey:
      case Expect.Key: {
        if (code === 0x7d && expect === Expect.FirstKey) {
          index++;
          stack.pop();
          out.push("}");
          expect = Expect.AfterValue;
          continue;
        }
        if (code !== 0x22) {
          if (code === 0x7d) throw new JsonSyntaxError(index, "a trailing comma before '}' is not allowed");
          throw unexpected("expected a property name in double quotes");
        }
        const end = scanString(source, index);
        out.push(newline(stack.length), renderString(source.slice(index, end)), ": ");
        index = end;
        expect = Expect.Colon;
        continue;
      }
      case Expect.Colon:
        if (code !== 0x3a) throw unexpected("expected ':' after a property name");
        index++;
        expect = Expect.Value;
        continue;
      case Expect.FirstItem:
      case Expect.Item: {
        if (code === 0x5d) {
          if (expect === Expect.Item) throw new JsonSyntaxError(index, "a trailing comma before ']' is not allowed");
          index++;
          stack.pop();
          out.push("]");
          expect = Expect.AfterValue;
          continue;
        }
        const array = top!;
        const isContainer = code === 0x7b || code === 0x5b;
        if (isContainer) array.inline = null;
        const blankLine = separateTopLevelItems && stack.length === 1 && expect === Expect.Item && isContainer;
        out.push(blankLine ? `\n${newline(1)}` : newline(stack.length));
        expect = Expect.Value;
        continue;
      }
      case Expect.Value: {
        if (code === 0x7b || code === 0x5b) {
          if (stack.length >= MAX_JSON_DEPTH) {
            throw new JsonSyntaxError(index, `the JSON is nested more than ${MAX_JSON_DEPTH} levels deep`);
          }
          const isObject = code === 0x7b;
          stack.push({ isObject, start: out.length, inline: isObject ? null : [], inlineWidth: 0 });
          out.push(isObject ? "{" : "[");
          index++;
          expect = isObject ? Expect.FirstKey : Expect.FirstItem;
          continue;
        }
        const end = scanScalar(source, index);
        const token = code === 0x22 ? renderString(source.slice(index, end)) : source.slice(index, end);
        out.push(token);
        if (top?.inline) {
          top.inline.push(token);
          top.inlineWidth += token.length + 2;
        }
        index = end;
        expect = Expect.AfterValue;
        continue;
      }
      case Expect.AfterValue: {
        if (!top) {
          const hint =
            code === 0x7b || code === 0x5b ? " (one value per line is JSON Lines: upload it as a .jsonl file)" : "";
          throw new JsonSyntaxError(index, `unexpected data after the end of the JSON value${hint}`);
        }
        if (code === 0x2c) {
          index++;
          out.push(",");
          expect = top.isObject ? Expect.Key : Expect.Item;
          continue;
        }
        if (top.isObject ? code !== 0x7d : code !== 0x5d) {
          throw unexpected(
            top.isObject ? "expected ',' or '}' after a property value" : "expected ',' or ']' after an array item",
          );
        }
        index++;
        stack.pop();
        if (top.inline && top.inlineWidth <= INLINE_ARRAY_WIDTH) {
          out.length = top.start;
          out.push(`[${top.inline.join(", ")}]`);
        } else {
          out.push(newline(stack.length), top.isObject ? "}" : "]");
        }
        continue;
      }
    }
  }
  return out.join("");
}

function scanString(source: string, start: number): number {
  let index = start + 1;
  for (;;) {
    STRING_RUN.lastIndex = index;
    STRING_RUN.test(source);
    index = STRING_RUN.lastIndex;
    if (index >= source.length) throw new JsonSyntaxError(start, "a string is never closed");
    const code = source.charCodeAt(index);
    if (code === 0x22) return index + 1;
    if (code === 0x5c) {
      const escape = source[index + 1];
      if (escape === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(source.slice(index + 2, index + 6))) {
          throw new JsonSyntaxError(index, "invalid \\u escape in a string");
        }
        index += 6;
      } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
        index += 2;
      } else {
        throw new JsonSyntaxError(index, "invalid escape sequence in a string");
      }
      continue;
    }
    throw new JsonSyntaxError(
      index,
      code === 0x0a ? "a line break inside a string (it must be written as \\n)" : "a control character inside a string",
    );
  }
}

function scanScalar(source: string, start: number): number {
  const code = source.charCodeAt(start);
  if (code === 0x22) return scanString(source, start);
  if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
    JSON_NUMBER.lastIndex = start;
    if (!JSON_NUMBER.test(source)) throw new JsonSyntaxError(start, "invalid number");
    return JSON_NUMBER.lastIndex;
  }
  for (const literal of ["true", "false", "null"]) {
    if (source.startsWith(literal, start)) return start + literal.length;
  }
  throw new JsonSyntaxError(start, `expected a value, found ${describeChar(source, start)}`);
}

/** Escapes like \u00e9 are spelled out so the text embeds as the words it holds. */
function renderString(token: string): string {
  return token.includes("\\u") ? JSON.stringify(JSON.parse(token)) : token;
}

function describeChar(source: string, index: number): string {
  const codePoint = source.codePointAt(index);
  if (codePoint === undefined) return "the end of the data";
  if (codePoint >= 0x20) return `'${String.fromCodePoint(codePoint)}'`;
  return `character U+${codePoint.toString(16).padStart(4, "0").toUpperCase()}`;
}

function lineAndColumn(source: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let newline = source.indexOf("\n"); newline !== -1 && newline < index; newline = source.indexOf("\n", newline + 1)) {
    line++;
    lineStart = newline + 1;
  }
  return { line, column: index - lineStart + 1 };
}

/** A top-level array is usually a list of records: a blank line between them lets chunks end there. */
function jsonToText(text: string): string {
  if (text.trim() === "") return "";
  try {
    return formatJson(text, true);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    const { line, column } = lineAndColumn(text, error.index);
    throw new DocumentParseError(`invalid JSON at line ${line}, column ${column}: ${error.message}`);
  }
}

function jsonLinesToText(text: string): string {
  const records: string[] = [];
  const lines = text.split("\n");
  for (let number = 1; number <= lines.length; number++) {
    const line = lines[number - 1]!;
    if (line.trim() === "") continue;
    try {
      records.push(formatJson(line, false));
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      throw new DocumentParseError(`invalid JSON at line ${number}, column ${error.index + 1}: ${error.message}`);
    }
  }
  return records.join("\n\n");
}

const DELIMITER_CANDIDATES = [",", ";", "\t", "|"] as const;

/**
 * Excel writes `;`-separated "CSV" wherever the decimal separator is a comma, so the delimiter is
 * the candidate seen most often in the header line (outside quotes); ties go to the comma.
 */
function sniffDelimiter(text: string): string {
  const counts = new Map<string, number>(DELIMITER_CANDIDATES.map((candidate) => [candidate, 0]));
  let inQuotes = false;
  const limit = Math.min(text.length, 65536);
  for (let index = 0; index < limit; index++) {
    const char = text[index]!;
    if (char === '"') inQuotes = !inQuotes;
    else if (inQuotes) continue;
    else if (char === "\n") break;
    else if (counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  let best: string = ",";
  for (const candidate of DELIMITER_CANDIDATES) {
    if ((counts.get(candidate) ?? 0) > (counts.get(best) ?? 0)) best = candidate;
  }
  return best;
}

/**
 * One paragraph per row, one `column: value` line per non-empty cell, so every chunk carries the
 * column names its values need to mean anything. The first row is always read as the header.
 */
function delimitedToText(text: string, delimiter: string, label: string): string {
  const [header, ...records] = text.includes('"') ? parseQuoted(text, delimiter, label) : splitUnquoted(text, delimiter);
  if (!header) return "";
  const names = header.map((name, column) => name.replace(/\s+/g, " ").trim() || `column ${column + 1}`);
  // A lone row may be data with no header; keeping it beats silently dropping it.
  if (records.length === 0) return header.map(cleanCell).filter(Boolean).join(" | ");

  const labels = names.map((name) => `${name}: `);
  const blocks: string[] = [];
  for (const record of records) {
    let block = "";
    for (let column = 0; column < record.length; column++) {
      const cell = cleanCell(record[column]!);
      if (cell) block += `${block ? "\n" : ""}${labels[column] ?? `column ${column + 1}: `}${cell}`;
    }
    if (block) blocks.push(block);
  }
  return blocks.join("\n\n");
}

/**
 * Without a single quote character there is nothing to unescape, and plain splitting is far cheaper
 * than csv-parse's byte-by-byte state machine on files of many short fields (numeric exports, logs).
 */
function splitUnquoted(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.split("\n")) {
    if (line !== "") rows.push(line.split(delimiter));
  }
  return rows;
}

function parseQuoted(text: string, delimiter: string, label: string): string[][] {
  try {
    return parseCsv(text, {
      delimiter,
      // Line endings are already LF; left to auto-detect, csv-parse re-scans for the record
      // delimiter until it finds one, which makes a long single-line file take seconds.
      record_delimiter: "\n",
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
    });
  } catch (error) {
    throw new DocumentParseError(`invalid ${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Blank lines inside a cell would look like the end of its row. */
function cleanCell(value: string): string {
  const trimmed = value.trim();
  return trimmed.includes("\n") ? trimmed.replace(/\n\s*\n/g, "\n") : trimmed;
}
