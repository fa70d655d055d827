/**
 * Splits document text into chunks for embedding.
 *
 * Every chunk is a contiguous slice of the input, so with no overlap the chunks concatenate back to
 * the exact input, and each chunk's `[start, end)` lets callers map a search hit back to its source.
 *
 * How a cut is chosen: the chunk grows up to `chunkSize` characters, then the scan walks backwards
 * from that limit looking for the best place to end it. Boundaries rank paragraph (blank line) >
 * line > sentence end > whitespace > a dictionary word break (Intl.Segmenter) > a hard cut that
 * keeps surrogate pairs and combining marks whole. A structural boundary (sentence or better) in
 * the back half of the window wins by rank, then by distance; the front half is only used when the
 * back half has none, so chunks stay at least half full whenever the text allows it.
 *
 * Semantics the README documents:
 * - `delimiter`: the text is split after every occurrence of the delimiter; the delimiter stays at
 *   the end of the piece it closes. Chunks never span two pieces. Within a piece the normal size
 *   rules apply, so small parts of one piece are merged up to the size limit, but two small pieces
 *   are never merged together. A piece with nothing but whitespace and the delimiter joins the piece
 *   before it (or the next one at the start of the text), so no chunk is empty.
 * - `by_title`: a new chunk starts at every Markdown heading (ATX `#`..`######` and setext, not
 *   inside fenced code), except that consecutive headings with no text between them stay together
 *   with the text that follows. In both strategies a chunk never ends right after a heading line:
 *   the heading moves to the next chunk.
 * - `maxChunkSize`: no chunk is ever longer. When larger than `chunkSize` it is slack: a chunk may
 *   run past `chunkSize` to reach a sentence or line end, or to take in the rest of its section,
 *   instead of ending mid-sentence or leaving a small tail.
 * - `pageOffsets`: the start offset of every page, in order, page 1 first (normally 0). A chunk's
 *   `page` is the page containing its first character; text before the first offset is page 1.
 * - Tables: a chunk that starts among the rows of a Markdown table (after its header row) repeats
 *   the table's header row and separator, and the heading right above the table if there is one
 *   (a workbook's sheet name), at the start of its text, so every chunk of a long table can be
 *   read alone. `repeated` says how many characters that is; the rest of the text is still the
 *   exact slice `[start, end)`, and the repetition counts against the size limits. A header longer
 *   than half the chunk size is not repeated (the chunk would have little room for rows).
 * - Whitespace-only text gives no chunks. A chunk is never whitespace-only unless the input holds a
 *   whitespace run about as long as the size limit, which cannot be placed any other way without
 *   breaking the size limit or exact reassembly.
 */

export interface ChunkOptions {
  /** Target characters (UTF-16 code units) per chunk. */
  chunkSize: number;
  /** Characters each chunk repeats from the end of the previous one; clamped below chunkSize / 2. */
  chunkOverlap: number;
  /** No chunk is longer than this; defaults to chunkSize. */
  maxChunkSize?: number;
  /** Split the text after each occurrence first; chunks never span two pieces. */
  delimiter?: string;
  strategy: "basic" | "by_title";
  /** Short language code (agentset enum, e.g. `en`, `zh`, `jp`, `th`); selects sentence rules. */
  languageCode?: string;
}

/** A slice of the input: `text === input.slice(start, end)`, after the `repeated` characters of a table header. */
export interface TextChunk {
  text: string;
  start: number;
  end: number;
  /** Characters at the start of `text` that repeat the header of the table the chunk continues (see Tables above). */
  repeated?: number;
  /** 1-based page of `start`, when page offsets were given. */
  page?: number;
}

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = Object.freeze({
  chunkSize: 2048,
  chunkOverlap: 0,
  strategy: "basic",
});

/**
 * Splits `text` into chunks. `pageOffsets` holds the start offset of each page, page 1 first.
 * Never throws and always terminates, whatever the options: out-of-range sizes are clamped.
 */
export function chunkText(text: string, options: ChunkOptions, pageOffsets?: number[]): TextChunk[] {
  const chunker = new Chunker(text, resolveLimits(options), languageRules(options.languageCode), findTables(text));
  if (skipWhitespace(text, 0, text.length) === text.length) return chunker.chunks;

  const byTitle = options.strategy === "by_title";
  const chunkPiece = (pieceStart: number, pieceEnd: number): void => {
    if (byTitle) forEachSection(text, pieceStart, pieceEnd, chunker.chunkSegment);
    else chunker.chunkSegment(pieceStart, pieceEnd);
  };
  const delimiter = options.delimiter;
  if (typeof delimiter === "string" && delimiter.length > 0) forEachPiece(text, delimiter, chunkPiece);
  else chunkPiece(0, text.length);

  if (pageOffsets !== undefined && pageOffsets.length > 0) assignPages(chunker.chunks, pageOffsets);
  return chunker.chunks;
}

interface Limits {
  target: number;
  hardMax: number;
  overlap: number;
  /** Distance from the chunk start below which a boundary is only a fallback. */
  fillFloor: number;
}

/**
 * Below half full, a chunk ends at a natural boundary only when the back half of the window has
 * none: recursive splitters that always take the highest-ranked boundary produce many tiny chunks.
 */
const MIN_FILL_RATIO = 0.5;

/** Two code units is the least that can hold any character without splitting a surrogate pair. */
const SMALLEST_LIMIT = 2;

function resolveLimits(options: ChunkOptions): Limits {
  const requested = wholeNumber(options.chunkSize, DEFAULT_CHUNK_OPTIONS.chunkSize);
  const hardMax = Math.max(SMALLEST_LIMIT, wholeNumber(options.maxChunkSize, requested));
  const target = Math.max(SMALLEST_LIMIT, Math.min(requested, hardMax));
  // Overlap of half the chunk or more would let the next chunk make no progress.
  const overlap = Math.min(Math.max(0, wholeNumber(options.chunkOverlap, 0)), Math.ceil(target / 2) - 1);
  return { target, hardMax, overlap, fillFloor: Math.floor(target * MIN_FILL_RATIO) };
}

/** NaN and absent values take the default; infinities clamp like any other out-of-range number. */
function wholeNumber(value: number | undefined, fallback: number): number {
  if (typeof value !== "number" || Number.isNaN(value)) return fallback;
  return Math.floor(Math.min(Number.MAX_SAFE_INTEGER, Math.max(-Number.MAX_SAFE_INTEGER, value)));
}

interface LanguageRules {
  /** Locale for Intl.Segmenter word breaks; undefined lets ICU detect the script. */
  locale: string | undefined;
  /** Thai, Lao, Khmer and Burmese put spaces between phrases and sentences, not between words. */
  spaceEndsSentence: boolean;
  /** In cased scripts, a full stop followed by a lower-case word is an abbreviation. */
  casedScript: boolean;
}

/** agentset's enum uses country-like codes for two languages; Intl wants the ISO 639-1 code. */
const LOCALE_FOR_CODE: Readonly<Record<string, string>> = { jp: "ja", kr: "ko" };
const SPACE_ENDS_SENTENCE = new Set(["th", "lo", "km", "my"]);
const UNCASED_SCRIPTS = new Set([
  "am", "ar", "bn", "fa", "he", "hi", "ja", "jp", "km", "ko", "kr",
  "lo", "my", "ne", "ta", "te", "th", "ur", "zh",
]);

function languageRules(languageCode: string | undefined): LanguageRules {
  const primary = languageCode?.trim().toLowerCase().split(/[-_]/)[0];
  if (primary === undefined || primary === "") {
    return { locale: undefined, spaceEndsSentence: false, casedScript: true };
  }
  return {
    locale: LOCALE_FOR_CODE[primary] ?? primary,
    spaceEndsSentence: SPACE_ENDS_SENTENCE.has(primary),
    casedScript: !UNCASED_SCRIPTS.has(primary),
  };
}

const LINE_FEED = 0x0a;
const ZERO_WIDTH_JOINER = 0x200d;

/** Exactly the characters String.prototype.trim removes, so "whitespace-only" means trim() === "". */
function isWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** Marks that terminate a sentence wherever they stand, with or without a following space. */
function isFullWidthStop(c: number): boolean {
  return c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0xff61 || c === 0xff0e;
}

/** Sentence terminators that need whitespace after them to end a sentence. */
function isSentenceTerminator(c: number): boolean {
  if (c < 0x80) return c === 0x2e || c === 0x21 || c === 0x3f;
  return (
    c === 0x2026 || // …
    c === 0x203c || // ‼
    c === 0x0964 || // Devanagari danda
    c === 0x0965 ||
    c === 0x061f || // Arabic question mark
    c === 0x06d4 || // Urdu full stop
    c === 0x1362 || // Ethiopic full stop
    c === 0x1367 ||
    isFullWidthStop(c)
  );
}

/** Quotes, brackets and emphasis markers that may close a sentence after its terminator. */
function isSentenceCloser(c: number): boolean {
  if (c < 0x80) return c === 0x22 || c === 0x27 || c === 0x29 || c === 0x5d || c === 0x2a || c === 0x5f;
  return (
    c === 0x201d || // ”
    c === 0x2019 || // ’
    c === 0xbb || // »
    c === 0x300d || // 」
    c === 0x300f || // 』
    c === 0x3011 || // 】
    c === 0x300b || // 》
    c === 0x3009 || // 〉
    c === 0xff09 || // ）
    c === 0xff3d // ］
  );
}

function isAsciiLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function isAsciiDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

const COMBINING_MARK = /^[\p{M}\u200d\ufe00-\ufe0f]$/u;

/** True when a cut before code unit `c` would separate it from the character it belongs to. */
function continuesCharacter(c: number): boolean {
  if (c < 0x0300) return false;
  if (isLowSurrogate(c)) return true;
  if ((c >= 0x3400 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7a3)) return false;
  return COMBINING_MARK.test(String.fromCharCode(c));
}

function skipWhitespace(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/** End of the last non-whitespace character in [from, to), or `from` when there is none. */
function contentEndIn(text: string, from: number, to: number): number {
  let i = to;
  while (i > from && isWhitespace(text.charCodeAt(i - 1))) i--;
  return i;
}

const MAX_HEADING_LENGTH = 1024;

/** ATX heading: up to three spaces, one to six `#`, then a space, a tab or the end of the line. */
function isAtxHeading(text: string, lineStart: number, lineEnd: number): boolean {
  let i = lineStart;
  while (i < lineEnd && i - lineStart < 3 && text.charCodeAt(i) === 0x20) i++;
  const hashesStart = i;
  while (i < lineEnd && text.charCodeAt(i) === 0x23) i++;
  const hashes = i - hashesStart;
  if (hashes < 1 || hashes > 6) return false;
  if (i === lineEnd) return true;
  const after = text.charCodeAt(i);
  return after === 0x20 || after === 0x09 || after === 0x0d;
}

/** Setext underline: a line of only `=` (one or more) or `-` (two or more), up to three spaces in. */
function isSetextUnderline(text: string, lineStart: number, lineEnd: number): boolean {
  let i = lineStart;
  while (i < lineEnd && i - lineStart < 3 && text.charCodeAt(i) === 0x20) i++;
  const marker = text.charCodeAt(i);
  if (marker !== 0x3d && marker !== 0x2d) return false;
  const markerStart = i;
  while (i < lineEnd && text.charCodeAt(i) === marker) i++;
  const markers = i - markerStart;
  while (i < lineEnd && isWhitespace(text.charCodeAt(i))) i++;
  return i === lineEnd && (marker === 0x3d || markers >= 2);
}

/** Fence opener or closer: up to three spaces, then three or more backticks or tildes. */
function fenceAt(
  text: string,
  lineStart: number,
  lineEnd: number,
): { marker: number; length: number; end: number } | null {
  let i = lineStart;
  while (i < lineEnd && i - lineStart < 3 && text.charCodeAt(i) === 0x20) i++;
  const marker = text.charCodeAt(i);
  if (marker !== 0x60 && marker !== 0x7e) return null;
  const markerStart = i;
  while (i < lineEnd && text.charCodeAt(i) === marker) i++;
  return i - markerStart >= 3 ? { marker, length: i - markerStart, end: i } : null;
}

/** ` ~ # = -: the characters a fence, an ATX heading or a setext underline can start with. */
function mayStartFenceOrHeading(c: number): boolean {
  return c === 0x60 || c === 0x7e || c === 0x23 || c === 0x3d || c === 0x2d;
}

/** A line whose text could be the title of a setext heading (not a list item, quote or table). */
function isPlainTextLine(text: string, lineStart: number, lineEnd: number): boolean {
  const first = skipWhitespace(text, lineStart, lineEnd);
  if (first === lineEnd) return false;
  const c = text.charCodeAt(first);
  if (c === 0x3e || c === 0x7c) return false; // > quote, | table
  const next = first + 1 < lineEnd ? text.charCodeAt(first + 1) : 0x20;
  if ((c === 0x2d || c === 0x2a || c === 0x2b) && isWhitespace(next)) return false; // - * + item
  if (isAsciiDigit(c)) {
    let i = first;
    while (i < lineEnd && isAsciiDigit(text.charCodeAt(i))) i++;
    const marker = text.charCodeAt(i);
    if ((marker === 0x2e || marker === 0x29) && (i + 1 >= lineEnd || isWhitespace(text.charCodeAt(i + 1)))) {
      return false; // 1. or 1) item
    }
  }
  return true;
}

/**
 * Calls `onSection` for each Markdown section of [from, to): a section starts at a heading that
 * follows body text, so headings with nothing between them share a section with what follows.
 */
function forEachSection(
  text: string,
  from: number,
  to: number,
  onSection: (start: number, end: number) => void,
): void {
  let sectionStart = from;
  let sectionHasBody = false;
  let bodyBeforePreviousLine = false;
  let previousLineStart = from;
  let previousLineEnd = from;
  let previousLineIsText = false;
  let fenceMarker = 0;
  let fenceLength = 0;

  let lineStart = from;
  while (lineStart < to) {
    let lineEnd = text.indexOf("\n", lineStart);
    if (lineEnd === -1 || lineEnd > to) lineEnd = to;
    const bodyBeforeThisLine = sectionHasBody;
    const first = skipWhitespace(text, lineStart, lineEnd);
    const marker = first < lineEnd ? text.charCodeAt(first) : 0;
    let isText = false;

    if (fenceMarker !== 0) {
      if (marker === fenceMarker && first - lineStart <= 3) {
        const fence = fenceAt(text, lineStart, lineEnd);
        const closes = fence !== null && fence.length >= fenceLength;
        if (closes && skipWhitespace(text, fence.end, lineEnd) === lineEnd) fenceMarker = 0;
      }
      sectionHasBody = true;
    } else if (first === lineEnd) {
      // Blank lines change nothing.
    } else if (first - lineStart > 3 || !mayStartFenceOrHeading(marker)) {
      // Indented code, or a line that can neither open a fence nor be a heading: body text.
      isText = true;
      sectionHasBody = true;
    } else {
      const fence = marker === 0x60 || marker === 0x7e ? fenceAt(text, lineStart, lineEnd) : null;
      if (fence !== null) {
        fenceMarker = fence.marker;
        fenceLength = fence.length;
        sectionHasBody = true;
      } else if (marker === 0x23 && isAtxHeading(text, lineStart, lineEnd)) {
        if (sectionHasBody) {
          onSection(sectionStart, lineStart);
          sectionStart = lineStart;
        }
        sectionHasBody = false;
      } else if (
        previousLineIsText &&
        isSetextUnderline(text, lineStart, lineEnd) &&
        isPlainTextLine(text, previousLineStart, previousLineEnd)
      ) {
        if (bodyBeforePreviousLine) {
          onSection(sectionStart, previousLineStart);
          sectionStart = previousLineStart;
        }
        sectionHasBody = false;
      } else {
        isText = true;
        sectionHasBody = true;
      }
    }

    bodyBeforePreviousLine = bodyBeforeThisLine;
    previousLineIsText = isText;
    previousLineStart = lineStart;
    previousLineEnd = lineEnd;
    lineStart = lineEnd + 1;
  }
  onSection(sectionStart, to);
}

/**
 * Calls `onPiece` for each delimiter piece; the delimiter ends the piece it closes. Pieces with no
 * content besides whitespace and the delimiter join a neighbour so that no chunk is empty.
 */
function forEachPiece(text: string, delimiter: string, onPiece: (start: number, end: number) => void): void {
  let pieceStart = 0;
  let pieceHasContent = false;
  let rawStart = 0;
  while (rawStart < text.length) {
    const found = text.indexOf(delimiter, rawStart);
    const contentEnd = found === -1 ? text.length : found;
    const rawEnd = found === -1 ? text.length : found + delimiter.length;
    const hasContent = skipWhitespace(text, rawStart, contentEnd) < contentEnd;
    if (hasContent && pieceHasContent) {
      onPiece(pieceStart, rawStart);
      pieceStart = rawStart;
    }
    pieceHasContent ||= hasContent;
    rawStart = rawEnd;
  }
  onPiece(pieceStart, text.length);
}

function assignPages(chunks: TextChunk[], pageOffsets: readonly number[]): void {
  let pageIndex = 0; // index into pageOffsets of the page holding the current chunk's start
  for (const chunk of chunks) {
    while (pageIndex + 1 < pageOffsets.length && (pageOffsets[pageIndex + 1] ?? Infinity) <= chunk.start) {
      pageIndex++;
    }
    // Text before the first offset (a cover or preamble the parser did not number) is page 1 too.
    chunk.page = pageIndex + 1;
  }
}

interface TableSpan {
  /** Start of the separator line (`| --- |`) and of the first row after it. */
  separatorStart: number;
  bodyStart: number;
  /** End of the last row. */
  end: number;
  /** The heading directly above the table (with its blank line), and the header row's line. */
  heading: string;
  headerLine: string;
  separatorLine: string;
}

/** `| --- | :-: |`: the line under a Markdown table's header row. */
const TABLE_SEPARATOR = /^\|(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*$/gm;

/** Every Markdown table with a header row, in order, with what a chunk continuing it repeats. */
function findTables(text: string): TableSpan[] {
  const tables: TableSpan[] = [];
  if (!text.includes("|")) return tables;
  TABLE_SEPARATOR.lastIndex = 0;
  for (let match = TABLE_SEPARATOR.exec(text); match !== null; match = TABLE_SEPARATOR.exec(text)) {
    const separatorStart = match.index;
    if (separatorStart < 2 || text.charCodeAt(separatorStart - 1) !== LINE_FEED) continue;
    const headerStart = text.lastIndexOf("\n", separatorStart - 2) + 1;
    if (text.charCodeAt(headerStart) !== 0x7c) continue;
    const headerLine = text.slice(headerStart, separatorStart - 1);
    let end = separatorStart + match[0].length;
    let bodyStart = end < text.length ? end + 1 : end;
    let line = bodyStart;
    while (line < text.length && text.charCodeAt(line) === 0x7c) {
      const lineEnd = text.indexOf("\n", line);
      end = lineEnd === -1 ? text.length : lineEnd;
      line = end + 1;
    }
    if (end <= bodyStart) bodyStart = end;
    tables.push({ separatorStart, bodyStart, end, heading: headingAbove(text, headerStart), headerLine, separatorLine: match[0] });
    TABLE_SEPARATOR.lastIndex = Math.max(end, separatorStart + match[0].length);
  }
  return tables;
}

/** The ATX heading line standing above `lineStart` with only blank lines between, plus a blank line; or "". */
function headingAbove(text: string, lineStart: number): string {
  let end = lineStart - 1;
  while (end > 0 && isWhitespace(text.charCodeAt(end - 1))) end--;
  if (end <= 0) return "";
  const start = text.lastIndexOf("\n", end - 1) + 1;
  if (end - start > MAX_HEADING_LENGTH || !isAtxHeading(text, start, end)) return "";
  return `${text.slice(start, end)}\n\n`;
}

/** How far before a window's end the dictionary word-break fallback looks. */
const SEGMENTER_LOOKBEHIND = 256;
/** Characters past the window's end the segmenter sees, so it can tell whether the end is a break. */
const SEGMENTER_LOOKAHEAD = 32;

const segmenters = new Map<string, Intl.Segmenter>();

function wordSegmenter(locale: string | undefined): Intl.Segmenter {
  const key = locale ?? "";
  let segmenter = segmenters.get(key);
  if (segmenter === undefined) {
    try {
      segmenter = new Intl.Segmenter(locale, { granularity: "word" });
    } catch {
      segmenter = new Intl.Segmenter(undefined, { granularity: "word" });
    }
    segmenters.set(key, segmenter);
  }
  return segmenter;
}

class Chunker {
  readonly chunks: TextChunk[] = [];
  private readonly text: string;
  private readonly length: number;
  /** The limits of the chunk being built: the configured ones, less a repeated table header. */
  private limits: Limits;
  private readonly configured: Limits;
  private readonly rules: LanguageRules;
  private readonly tables: readonly TableSpan[];
  private nextTable = 0;
  private newlineSearchedFrom = 0;
  private nextNewline = -1;

  constructor(text: string, limits: Limits, rules: LanguageRules, tables: readonly TableSpan[]) {
    this.text = text;
    this.length = text.length;
    this.limits = limits;
    this.configured = limits;
    this.rules = rules;
    this.tables = tables;
  }

  /**
   * What a chunk starting at `start` repeats of the table it starts in: the heading above the
   * table and its header row (and separator, unless the chunk starts with it). Chunks come in text
   * order, so one walk over the tables serves them all.
   */
  private repeatedHeader(start: number): string {
    const first = skipWhitespace(this.text, start, this.length);
    // An overlapping chunk may start a little before the previous one did.
    while (this.nextTable > 0 && this.tables[this.nextTable - 1]!.end > first) this.nextTable--;
    while (this.nextTable < this.tables.length && this.tables[this.nextTable]!.end <= first) this.nextTable++;
    const table = this.tables[this.nextTable];
    if (table === undefined || first < table.separatorStart || first >= table.end) return "";
    const header = first < table.bodyStart ? `${table.heading}${table.headerLine}\n` : `${table.heading}${table.headerLine}\n${table.separatorLine}\n`;
    return header.length * 2 <= this.configured.target ? header : "";
  }

  /** The configured limits less the room a repeated header takes. */
  private limitsAfter(repeated: number): Limits {
    if (repeated === 0) return this.configured;
    const { target, hardMax, overlap } = this.configured;
    const shorterTarget = Math.max(SMALLEST_LIMIT, target - repeated);
    return {
      target: shorterTarget,
      hardMax: Math.max(shorterTarget, hardMax - repeated),
      overlap: Math.min(overlap, Math.ceil(shorterTarget / 2) - 1),
      fillFloor: Math.floor(shorterTarget * MIN_FILL_RATIO),
    };
  }

  /** Chunks the hard segment [segmentStart, segmentEnd); no chunk crosses its edges. */
  readonly chunkSegment = (segmentStart: number, segmentEnd: number): void => {
    const contentEnd = contentEndIn(this.text, segmentStart, segmentEnd);
    if (contentEnd === segmentStart) {
      this.absorbWhitespace(segmentStart, segmentEnd);
      return;
    }
    let start = segmentStart; // first character of the chunk being built
    let fresh = segmentStart; // first character no earlier chunk holds (start < fresh when overlapping)
    for (;;) {
      const header = this.tables.length === 0 ? "" : this.repeatedHeader(start);
      this.limits = this.limitsAfter(header.length);
      const { target, hardMax, overlap } = this.limits;
      const remaining = segmentEnd - start;
      // hardMax >= target: a tail that fits the hard limit is kept whole rather than split off.
      if (remaining <= hardMax) {
        this.emit(start, segmentEnd, header);
        return;
      }
      let cut: number;
      if (contentEnd - start <= target) {
        // Only trailing whitespace overflows: cut earlier so the last chunk still holds text.
        const earliest = segmentEnd - hardMax;
        cut =
          earliest <= contentEnd - 1
            ? this.findCut(start, fresh, contentEnd - 1, earliest, segmentEnd)
            : start + hardMax;
      } else {
        cut = this.findCut(start, fresh, start + target, 0, segmentEnd);
      }
      if (cut <= fresh) cut = this.forwardProgress(fresh, start);
      this.emit(start, cut, header);
      fresh = cut;
      start = overlap > 0 ? this.overlapStart(cut, segmentStart) : cut;
    }
  };

  private emit(start: number, end: number, header: string): void {
    const slice = this.text.slice(start, end);
    this.chunks.push(header === "" ? { text: slice, start, end } : { text: header + slice, start, end, repeated: header.length });
  }

  /** Whitespace between hard segments joins the chunk before it when it fits there. */
  private absorbWhitespace(start: number, end: number): void {
    const previous = this.chunks[this.chunks.length - 1];
    const repeated = previous?.repeated ?? 0;
    if (previous !== undefined && previous.end === start && end - previous.start + repeated <= this.configured.hardMax) {
      previous.end = end;
      previous.text = previous.text.slice(0, repeated) + this.text.slice(previous.start, end);
      return;
    }
    this.limits = this.configured;
    const { hardMax } = this.limits;
    for (let from = start; from < end; from += hardMax) this.emit(from, Math.min(end, from + hardMax), "");
  }

  /** Last resort that guarantees progress even on inputs the boundary search cannot place. */
  private forwardProgress(fresh: number, start: number): number {
    const cut = Math.min(this.length, Math.max(fresh + 1, start + this.limits.target));
    if (cut >= this.length || !isHighSurrogate(this.text.charCodeAt(cut - 1))) return cut;
    if (!isLowSurrogate(this.text.charCodeAt(cut))) return cut;
    return cut - 1 > fresh ? cut - 1 : cut + 1;
  }

  /**
   * Where the next chunk begins so that it repeats at most `overlap` characters of the previous
   * one, starting on a word where the overlap contains a word start.
   */
  private overlapStart(cut: number, segmentStart: number): number {
    const text = this.text;
    const earliest = Math.max(segmentStart, cut - this.limits.overlap);
    let i = earliest;
    if (i > segmentStart && !isWhitespace(text.charCodeAt(i - 1))) {
      while (i < cut && !isWhitespace(text.charCodeAt(i))) i++;
    }
    i = skipWhitespace(text, i, cut);
    if (i < cut) return i;
    let fallback = earliest;
    while (fallback < cut && this.splitsCharacter(fallback)) fallback++;
    return fallback;
  }

  /**
   * Picks the end of the chunk that starts at `start`: a position in (first content after `fresh`,
   * windowEnd], at or after `earliest`.
   */
  private findCut(
    start: number,
    fresh: number,
    windowEnd: number,
    earliest: number,
    segmentEnd: number,
  ): number {
    const text = this.text;
    const contentStart = skipWhitespace(text, fresh, windowEnd);
    // A whitespace run longer than the window: nothing better than filling the chunk with it.
    if (contentStart >= windowEnd) return windowEnd;
    const lowest = Math.max(earliest, contentStart + 1);
    if (lowest > windowEnd) return windowEnd;
    const fillFloor = Math.max(lowest, start + this.limits.fillFloor);
    // Furthest line break refused because a heading precedes it; used only to avoid splitting a
    // heading line itself when a block of headings cannot share a chunk with its first words.
    let afterHeadingCut = 0;

    // Back half, line and paragraph breaks: hop between newlines with native searches. The cached
    // forward search bounds every backward one, so no search runs past the chunk's content.
    const firstNewline = this.newlineAtOrAfter(contentStart);
    let lineCut = 0;
    // When the window ends inside a whitespace run, newlines after the window still rank the cut.
    const windowEndInLineBreak =
      windowEnd < segmentEnd &&
      isWhitespace(text.charCodeAt(windowEnd - 1)) &&
      this.newlinesAhead(windowEnd, segmentEnd, 1) > 0;
    let newline = firstNewline < windowEnd ? text.lastIndexOf("\n", windowEnd - 1) : -1;
    if (windowEndInLineBreak) newline = windowEnd - 1; // judge the run that crosses the window end first
    while (newline >= contentStart) {
      let runStart = newline;
      while (runStart > contentStart && isWhitespace(text.charCodeAt(runStart - 1))) runStart--;
      let runEnd = newline + 1;
      while (runEnd < windowEnd && isWhitespace(text.charCodeAt(runEnd))) runEnd++;
      if (runEnd < fillFloor) break;
      let newlines = 0;
      for (let k = runStart; k < runEnd; k++) if (text.charCodeAt(k) === LINE_FEED) newlines++;
      if (runEnd === windowEnd && newlines < 2) {
        newlines += this.newlinesAhead(runEnd, segmentEnd, 2 - newlines);
      }
      const previousNewline = runStart > firstNewline ? text.lastIndexOf("\n", runStart - 1) : -1;
      // The first line of the chunk: a line that began in an earlier chunk cannot move into this
      // one, so it only needs judging when the chunk's content starts the line.
      const lineStart = previousNewline >= 0 ? previousNewline + 1 : this.lineStartAt(contentStart);
      if (lineStart >= 0 && this.endsWithHeading(lineStart, runStart)) {
        if (afterHeadingCut === 0) afterHeadingCut = runEnd;
      } else if (newlines >= 2) {
        return runEnd;
      } else if (lineCut === 0 && !this.underlinedBelow(runStart, runEnd)) {
        lineCut = runEnd;
      }
      newline = previousNewline;
    }
    if (lineCut !== 0) return lineCut;

    // Back half without a usable line break: the furthest sentence end.
    let wordCut = 0;
    let i = windowEnd;
    while (i >= fillFloor) {
      const c = text.charCodeAt(i - 1);
      if (isWhitespace(c)) {
        const runEnd = i;
        let hasNewline = c === LINE_FEED;
        let runStart = i - 1;
        while (runStart > contentStart) {
          const d = text.charCodeAt(runStart - 1);
          if (!isWhitespace(d)) break;
          if (d === LINE_FEED) hasNewline = true;
          runStart--;
        }
        i = runStart;
        if (hasNewline || (runEnd === windowEnd && windowEndInLineBreak)) continue; // judged above
        if (this.endsSentence(runStart, runEnd)) return runEnd;
        if (wordCut === 0) wordCut = runEnd;
      } else {
        if (c >= 0x2019 && this.isStopBetweenLetters(i)) return i;
        i--;
      }
    }

    const slackEnd = Math.min(start + this.limits.hardMax, segmentEnd);
    const slackCut = slackEnd > windowEnd ? this.structuralCutInSlack(windowEnd, slackEnd, contentStart) : 0;
    if (slackCut !== 0) return slackCut;

    // Front half: any structural boundary beats splitting sentences, however small the chunk.
    while (i >= lowest) {
      const c = text.charCodeAt(i - 1);
      if (isWhitespace(c)) {
        const runEnd = i;
        let newlines = c === LINE_FEED ? 1 : 0;
        let runStart = i - 1;
        while (runStart > contentStart) {
          const d = text.charCodeAt(runStart - 1);
          if (!isWhitespace(d)) break;
          if (d === LINE_FEED) newlines++;
          runStart--;
        }
        i = runStart;
        if (newlines > 0) {
          if (this.endsWithHeading(this.lineStartBefore(runStart), runStart)) {
            if (afterHeadingCut === 0) afterHeadingCut = runEnd;
          } else if (newlines > 1 || !this.underlinedBelow(runStart, runEnd)) {
            return runEnd;
          }
        } else if (this.endsSentence(runStart, runEnd)) {
          return runEnd;
        } else if (wordCut === 0) {
          wordCut = runEnd;
        }
      } else {
        if (c >= 0x2019 && this.isStopBetweenLetters(i)) return i;
        i--;
      }
    }
    if (wordCut !== 0) {
      return afterHeadingCut !== 0 && this.insideHeadingLine(wordCut) ? afterHeadingCut : wordCut;
    }

    const slackWord = slackEnd > windowEnd ? this.firstSpaceInSlack(windowEnd, slackEnd) : 0;
    if (slackWord !== 0) return slackWord;

    const dictionaryCut = this.dictionaryWordCut(lowest, windowEnd);
    if (dictionaryCut !== 0) return dictionaryCut;
    return this.hardCut(lowest, windowEnd);
  }

  /** First newline at or after `from` (or the text length); cached, since windows only move forward. */
  private newlineAtOrAfter(from: number): number {
    if (from >= this.newlineSearchedFrom && from <= this.nextNewline) return this.nextNewline;
    const found = this.text.indexOf("\n", from);
    this.newlineSearchedFrom = from;
    this.nextNewline = found === -1 ? this.length : found;
    return this.nextNewline;
  }

  /** Start of the line when only spaces precede `position` on it, else -1. */
  private lineStartAt(position: number): number {
    let i = position;
    while (i > 0) {
      const c = this.text.charCodeAt(i - 1);
      if (c === LINE_FEED) return i;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return -1;
      i--;
    }
    return 0;
  }

  /** Start of the line ending at `lineEnd`, looking back no further than a heading could reach. */
  private lineStartBefore(lineEnd: number): number {
    const floor = Math.max(0, lineEnd - MAX_HEADING_LENGTH - 1);
    let lineStart = lineEnd;
    while (lineStart > floor && this.text.charCodeAt(lineStart - 1) !== LINE_FEED) lineStart--;
    return lineStart;
  }

  /** Newlines in the whitespace run continuing at `from`, counting no further than `wanted`. */
  private newlinesAhead(from: number, segmentEnd: number, wanted: number): number {
    let found = 0;
    // Only the rank of the boundary is at stake, so a huge run is not worth reading to its end.
    const stop = Math.min(segmentEnd, from + this.limits.target);
    for (let i = from; i < stop && found < wanted; i++) {
      const c = this.text.charCodeAt(i);
      if (!isWhitespace(c)) break;
      if (c === LINE_FEED) found++;
    }
    return found;
  }

  /** True when whitespace starting at `runStart` follows a sentence terminator. */
  private endsSentence(runStart: number, runEnd: number): boolean {
    if (this.rules.spaceEndsSentence) return true;
    const text = this.text;
    let i = runStart - 1;
    let c = text.charCodeAt(i);
    for (let closers = 0; closers < 3 && i > 0 && isSentenceCloser(c); closers++) c = text.charCodeAt(--i);
    if (!isSentenceTerminator(c)) return false;
    if (c !== 0x2e || !this.rules.casedScript) return true;

    // A full stop followed by a lower-case word, after an initial ("J.", "e.g.") or as an ordered
    // list marker ("3.") is not the end of a sentence.
    const next = runEnd < this.length ? text.charCodeAt(runEnd) : 0;
    if (next >= 0x61 && next <= 0x7a) return false;
    const beforeStop = i > 0 ? text.charCodeAt(i - 1) : 0;
    if (isAsciiLetter(beforeStop)) {
      const beforeLetter = i > 1 ? text.charCodeAt(i - 2) : 0x20;
      return !(isWhitespace(beforeLetter) || beforeLetter === 0x2e || beforeLetter === 0x28);
    }
    if (isAsciiDigit(beforeStop)) {
      let j = i - 1;
      while (j > 0 && isAsciiDigit(text.charCodeAt(j - 1))) j--;
      while (j > 0 && (text.charCodeAt(j - 1) === 0x20 || text.charCodeAt(j - 1) === 0x09)) j--;
      return !(j === 0 || text.charCodeAt(j - 1) === LINE_FEED);
    }
    return true;
  }

  /** A full-width stop (。！？), possibly closed by a quote or bracket, right before position `i`. */
  private isStopBetweenLetters(i: number): boolean {
    const text = this.text;
    if (i >= this.length) return false;
    const after = text.charCodeAt(i);
    if (isWhitespace(after) || isSentenceCloser(after) || isFullWidthStop(after)) return false;
    let j = i - 1;
    let c = text.charCodeAt(j);
    for (let closers = 0; closers < 2 && j > 0 && isSentenceCloser(c); closers++) c = text.charCodeAt(--j);
    return isFullWidthStop(c);
  }

  /**
   * True when the line [lineStart, lineEnd) before a line break is a Markdown heading, so cutting
   * after it would leave the heading at the end of the chunk, away from the text it introduces.
   */
  private endsWithHeading(lineStart: number, lineEnd: number): boolean {
    const text = this.text;
    if (lineEnd - lineStart > MAX_HEADING_LENGTH) return false;
    if (isAtxHeading(text, lineStart, lineEnd)) return true;
    if (lineStart === 0 || !isSetextUnderline(text, lineStart, lineEnd)) return false;
    // The underline makes a heading only when a line of text stands right above it.
    const titleEnd = lineStart - 1;
    return isPlainTextLine(text, this.lineStartBefore(titleEnd), titleEnd);
  }

  /** True when the cut at `cut` falls inside an ATX heading line or a setext title. */
  private insideHeadingLine(cut: number): boolean {
    const text = this.text;
    const lineStart = this.lineStartBefore(cut);
    let lineEnd = text.indexOf("\n", cut);
    if (lineEnd === -1) lineEnd = this.length;
    if (lineEnd - lineStart > MAX_HEADING_LENGTH) return false;
    if (isAtxHeading(text, lineStart, lineEnd)) return true;
    return lineEnd < this.length && this.underlinedBelow(lineEnd, lineEnd + 1);
  }

  /** True when the line break at [lineEnd, nextLineStart) separates a setext title from its underline. */
  private underlinedBelow(lineEnd: number, nextLineStart: number): boolean {
    const text = this.text;
    const first = skipWhitespace(text, nextLineStart, Math.min(this.length, nextLineStart + 4));
    const marker = text.charCodeAt(first);
    if (marker !== 0x3d && marker !== 0x2d) return false;
    let underlineEnd = text.indexOf("\n", nextLineStart);
    if (underlineEnd === -1) underlineEnd = this.length;
    if (underlineEnd - nextLineStart > MAX_HEADING_LENGTH) return false;
    if (!isSetextUnderline(text, nextLineStart, underlineEnd)) return false;
    return isPlainTextLine(text, this.lineStartBefore(lineEnd), lineEnd);
  }

  /** First sentence, line or paragraph end in (windowEnd, slackEnd], or 0. */
  private structuralCutInSlack(windowEnd: number, slackEnd: number, contentStart: number): number {
    const text = this.text;
    let i = windowEnd;
    while (i < slackEnd) {
      const c = text.charCodeAt(i);
      if (isWhitespace(c)) {
        let runStart = i;
        while (runStart > contentStart && isWhitespace(text.charCodeAt(runStart - 1))) runStart--;
        let runEnd = i;
        let newlines = 0;
        for (let k = runStart; k < i; k++) if (text.charCodeAt(k) === LINE_FEED) newlines++;
        while (runEnd < slackEnd && isWhitespace(text.charCodeAt(runEnd))) {
          if (text.charCodeAt(runEnd) === LINE_FEED) newlines++;
          runEnd++;
        }
        if (runEnd < this.length && isWhitespace(text.charCodeAt(runEnd))) return 0; // run exceeds the slack
        if (runStart > contentStart) {
          const cuttable =
            newlines === 0
              ? this.endsSentence(runStart, runEnd)
              : !this.endsWithHeading(this.lineStartBefore(runStart), runStart) &&
                (newlines > 1 || !this.underlinedBelow(runStart, runEnd));
          if (cuttable) return runEnd;
        }
        i = runEnd;
      } else {
        if (c >= 0x2019 && i + 1 <= slackEnd && this.isStopBetweenLetters(i + 1)) return i + 1;
        i++;
      }
    }
    return 0;
  }

  /** End of the first whitespace run that closes within (windowEnd, slackEnd], or 0. */
  private firstSpaceInSlack(windowEnd: number, slackEnd: number): number {
    const text = this.text;
    let i = windowEnd;
    while (i < slackEnd && !isWhitespace(text.charCodeAt(i))) i++;
    if (i >= slackEnd) return 0;
    while (i < slackEnd && isWhitespace(text.charCodeAt(i))) i++;
    return i < this.length && isWhitespace(text.charCodeAt(i)) ? 0 : i;
  }

  /** Last dictionary word break (ICU; handles Chinese, Japanese, Thai) in [lowest, windowEnd], or 0. */
  private dictionaryWordCut(lowest: number, windowEnd: number): number {
    const from = Math.max(lowest - 1, windowEnd - SEGMENTER_LOOKBEHIND);
    const to = Math.min(this.length, windowEnd + SEGMENTER_LOOKAHEAD);
    let best = 0;
    for (const segment of wordSegmenter(this.rules.locale).segment(this.text.slice(from, to))) {
      if (segment.index === 0) continue; // the slice's start is not a break in the text
      const boundary = from + segment.index;
      if (boundary > windowEnd) break;
      if (boundary >= lowest) best = boundary;
    }
    return best;
  }

  /** A cut at `windowEnd`, moved back so no character (surrogate pair, combining sequence) splits. */
  private hardCut(lowest: number, windowEnd: number): number {
    const text = this.text;
    let cut = windowEnd;
    while (cut > lowest && this.splitsCharacter(cut)) cut--;
    if (!this.splitsCharacter(cut)) return cut;
    cut = windowEnd;
    if (isHighSurrogate(text.charCodeAt(cut - 1)) && isLowSurrogate(text.charCodeAt(cut))) cut--;
    return cut;
  }

  private splitsCharacter(cut: number): boolean {
    if (cut <= 0 || cut >= this.length) return false;
    const before = this.text.charCodeAt(cut - 1);
    if (isHighSurrogate(before) || before === ZERO_WIDTH_JOINER) return true;
    const after = this.text.charCodeAt(cut);
    if (after === 0xd83c) {
      // Emoji skin-tone modifiers (U+1F3FB..U+1F3FF) belong to the emoji before them.
      const low = this.text.charCodeAt(cut + 1);
      if (low >= 0xdffb && low <= 0xdfff) return true;
    }
    return continuesCharacter(after);
  }
}
