import { checkDeadline, DocumentExtractionError } from "../limits.ts";
import { markdownTable } from "../markdown.ts";
import type { ExtractedDocument, ExtractionOptions, FormatExtractor } from "../types.ts";

/**
 * Rich Text Format, read by a small tokenizer of our own: the registry's RTF packages are either
 * unmaintained for years or render to a browser DOM. RTF is a flat stream of groups, control words
 * and text, so reading the text is one pass: skip the destinations that hold no reading matter
 * (font and colour tables, pictures, field instructions, metadata), decode code-page bytes and
 * \u escapes, and turn paragraph marks, outline levels, list markers and table cells into Markdown.
 */

const LABEL = "RTF";

/** Destinations whose content is never reading matter. */
const SKIPPED_DESTINATIONS = new Set([
  "fonttbl", "colortbl", "info", "pict", "object", "themedata", "colorschememapping", "datastore",
  "latentstyles", "listtable", "listoverridetable", "rsidtbl", "generator", "xmlnstbl", "mmathPr", "fldinst",
  "bkmkstart", "bkmkend", "filetbl", "revtbl", "pgdsctbl", "nonshppict", "header", "headerl", "headerr", "headerf",
  "footer", "footerl", "footerr", "footerf", "footnote", "annotation", "atnid", "atnauthor", "objdata", "blipuid",
  "shpinst", "sp", "sn", "sv", "template", "userprops", "wgrffmtfilter", "passwordhash", "protusertbl",
]);
/** Groups that carry a list item's bullet or number, as the writer rendered it ("0.", "a)", a bullet glyph). */
const LIST_MARKERS = new Set(["listtext", "pntext"]);
/** Largest group nesting accepted; real files stay under a hundred. */
const MAX_DEPTH = 4096;

interface GroupState {
  skip: boolean;
  unicodeSkip: number;
  /** Inside the style sheet: each group below it defines one style. */
  stylesheet?: boolean;
  /** The style definition this group belongs to. */
  style?: StyleDefinition;
  /** Inside a list item's rendered marker (\listtext). */
  marker?: boolean;
}

/** A paragraph style of the style sheet: `{\s1 ... \outlinelevel0 ... Heading 1;}`. */
interface StyleDefinition {
  number: number;
  paragraph: boolean;
  outlineLevel: number | undefined;
  name: string;
}

/**
 * The outline level a style gives its paragraphs: its own \outlinelevel, else its name when it is
 * one of the built-in heading styles ("heading 1" in Word, "Heading 1" in LibreOffice).
 */
function styleOutlineLevel(style: StyleDefinition): number | undefined {
  if (style.outlineLevel !== undefined) return style.outlineLevel;
  const named = /^\s*heading\s*([1-9])\s*$/i.exec(style.name.replace(/;\s*$/, ""));
  return named ? Number(named[1]) - 1 : undefined;
}

class RtfReader {
  private readonly out: string[] = [];
  private paragraph = "";
  private outlineLevel: number | undefined;
  /** The paragraph's style (\sN) and the outline levels the style sheet gives styles. */
  private paragraphStyle = 0;
  /** The list level of the paragraph (\ilvl), and the marker its \listtext rendered. */
  private listLevel = 0;
  private markerText = "";
  private itemMarker: string | undefined;
  private readonly styleLevels = new Map<number, number>();
  private inTable = false;
  private cells: string[] = [];
  private tableRows: string[][] = [];
  private codePage = 1252;
  private pendingBytes: number[] = [];
  private pendingSkip = 0;

  constructor(
    private readonly source: string,
    private readonly options: ExtractionOptions,
  ) {}

  read(): string {
    const source = this.source;
    const stack: GroupState[] = [];
    let state: GroupState = { skip: false, unicodeSkip: 1 };
    let index = 0;
    let destinationPending = false;
    while (index < source.length) {
      if ((index & 0xffff) === 0) checkDeadline(this.options.limits, LABEL);
      const char = source[index]!;
      if (char === "{") {
        if (stack.length >= MAX_DEPTH) throw new DocumentExtractionError(`the RTF file nests groups more than ${MAX_DEPTH} levels deep`);
        this.flushBytes();
        stack.push(state);
        state = { ...state };
        if (state.stylesheet && !state.style) state.style = { number: 0, paragraph: true, outlineLevel: undefined, name: "" };
        destinationPending = true;
        index++;
        continue;
      }
      if (char === "}") {
        this.flushBytes();
        const closed = state;
        state = stack.pop() ?? state;
        if (closed.style && closed.style !== state.style) this.defineStyle(closed.style);
        if (closed.marker && !state.marker) this.itemMarker = listMarker(this.markerText);
        destinationPending = false;
        index++;
        continue;
      }
      if (char === "\\") {
        const next = source[index + 1];
        if (next === undefined) break;
        if (next === "'") {
          const byte = Number.parseInt(source.slice(index + 2, index + 4), 16);
          index += 4;
          if (this.pendingSkip > 0) this.pendingSkip--;
          else if (state.marker) this.markerText += "\u2022";
          else if (!state.skip && Number.isFinite(byte)) this.pendingBytes.push(byte);
          destinationPending = false;
          continue;
        }
        if (!/[a-zA-Z]/.test(next)) {
          index += 2;
          destinationPending = next === "*" ? destinationPending : false;
          if (next === "*") {
            // An ignorable destination we do not know: skip it, as the format asks readers to.
            state.skip = true;
            state.style = undefined;
            continue;
          }
          if (state.skip) continue;
          if (next === "\\" || next === "{" || next === "}") this.text(next);
          else if (next === "~") this.text("\u00a0");
          else if (next === "_") this.text("-");
          else if (next === "\n" || next === "\r") this.endParagraph();
          continue;
        }
        const match = /^([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(source.slice(index + 1, index + 48))!;
        index += 1 + match[0].length;
        const word = match[1]!;
        const parameter = match[2] === undefined ? undefined : Number(match[2]);
        const isDestination = destinationPending;
        destinationPending = false;
        if (isDestination && word === "stylesheet") {
          state.skip = true;
          state.stylesheet = true;
          continue;
        }
        if (state.style) {
          this.styleControl(state.style, word, parameter);
          continue;
        }
        if (isDestination && SKIPPED_DESTINATIONS.has(word)) {
          state.skip = true;
          continue;
        }
        if (isDestination && LIST_MARKERS.has(word)) {
          if (!state.skip) {
            state.marker = true;
            this.markerText = "";
          }
          state.skip = true;
          continue;
        }
        this.control(word, parameter, state);
        continue;
      }
      if (char === "\r" || char === "\n") {
        index++;
        continue;
      }
      destinationPending = false;
      // Plain text up to the next special character.
      let end = index + 1;
      while (end < source.length && !"{}\\\r\n".includes(source[end]!)) end++;
      let run = source.slice(index, end);
      index = end;
      if (state.style) state.style.name += run;
      if (state.skip && !state.marker) continue;
      if (this.pendingSkip > 0) {
        const skipped = Math.min(this.pendingSkip, run.length);
        run = run.slice(skipped);
        this.pendingSkip -= skipped;
      }
      if (state.marker) this.markerText += run;
      else this.text(run);
    }
    this.flushBytes();
    this.endParagraph();
    this.endTable();
    return this.out.join("").replace(/\n{3,}/g, "\n\n").trim();
  }

  private control(word: string, parameter: number | undefined, state: GroupState): void {
    if (state.marker) {
      // A marker group restates paragraph properties (LibreOffice writes \pard inside \listtext);
      // they are not the paragraph's, and only the marker's characters matter.
      if (word === "u" && parameter !== undefined) {
        this.markerText += String.fromCharCode(parameter < 0 ? parameter + 65536 : parameter);
        this.pendingSkip = state.unicodeSkip;
      }
      return;
    }
    switch (word) {
      case "ansicpg":
        if (parameter !== undefined) this.codePage = parameter;
        return;
      case "uc":
        state.unicodeSkip = Math.max(0, parameter ?? 1);
        return;
      case "u":
        if (state.skip || parameter === undefined) return;
        this.text(String.fromCharCode(parameter < 0 ? parameter + 65536 : parameter));
        this.pendingSkip = state.unicodeSkip;
        return;
      case "pard":
        this.outlineLevel = undefined;
        this.paragraphStyle = 0;
        this.listLevel = 0;
        this.inTable = false;
        return;
      case "ilvl":
        this.listLevel = Math.max(0, Math.min(8, parameter ?? 0));
        return;
      case "s":
        this.paragraphStyle = parameter ?? 0;
        return;
      case "outlinelevel":
        this.outlineLevel = parameter;
        return;
      case "intbl":
        this.inTable = true;
        return;
    }
    if (state.skip) return;
    switch (word) {
      case "par":
      case "sect":
      case "page":
        this.endParagraph();
        return;
      case "line":
        this.text("\n");
        return;
      case "tab":
        this.text(" ");
        return;
      case "cell":
        this.flushBytes();
        this.cells.push(this.paragraph.trim());
        this.paragraph = "";
        return;
      case "row":
        this.flushBytes();
        if (this.paragraph.trim() !== "") this.cells.push(this.paragraph.trim());
        this.paragraph = "";
        this.tableRows.push(this.cells);
        this.cells = [];
        return;
      case "emdash":
        this.text("\u2014");
        return;
      case "endash":
        this.text("\u2013");
        return;
      case "bullet":
        this.text("\u2022");
        return;
      case "lquote":
        this.text("\u2018");
        return;
      case "rquote":
        this.text("\u2019");
        return;
      case "ldblquote":
        this.text("\u201c");
        return;
      case "rdblquote":
        this.text("\u201d");
        return;
    }
  }

  private styleControl(style: StyleDefinition, word: string, parameter: number | undefined): void {
    if (word === "s") style.number = parameter ?? 0;
    else if (word === "cs" || word === "ts" || word === "ds") style.paragraph = false;
    else if (word === "outlinelevel") style.outlineLevel = parameter;
  }

  private defineStyle(style: StyleDefinition): void {
    const level = style.paragraph ? styleOutlineLevel(style) : undefined;
    if (level !== undefined) this.styleLevels.set(style.number, level);
  }

  private text(text: string): void {
    this.flushBytes();
    this.paragraph += text;
  }

  /** Code-page bytes are decoded together, as double-byte code pages split a character over two escapes. */
  private flushBytes(): void {
    if (this.pendingBytes.length === 0) return;
    const bytes = Uint8Array.from(this.pendingBytes);
    this.pendingBytes = [];
    let decoded: string;
    try {
      decoded = new TextDecoder(this.codePage === 65001 ? "utf-8" : `windows-${this.codePage}`).decode(bytes);
    } catch {
      decoded = new TextDecoder("windows-1252").decode(bytes);
    }
    this.paragraph += decoded;
  }

  private endParagraph(): void {
    this.flushBytes();
    if (this.inTable) {
      // Paragraph marks inside a cell separate lines of that cell.
      this.paragraph += " ";
      return;
    }
    this.endTable();
    const text = this.paragraph.replace(/[ \t\u00a0]+/g, " ").trim();
    this.paragraph = "";
    if (text === "") return;
    const level = this.outlineLevel ?? this.styleLevels.get(this.paragraphStyle);
    const heading = level !== undefined && level >= 0 && level < 6 ? `${"#".repeat(level + 1)} ` : "";
    const marker = this.itemMarker;
    this.itemMarker = undefined;
    if (heading) {
      // Outline numbering a writer renders before headings stays; a bullet on a heading does not.
      const number = marker && marker !== "- " ? marker : "";
      this.out.push(`\n\n${heading}${number}${text}\n\n`);
    } else if (marker) {
      this.out.push(`${"  ".repeat(this.listLevel)}${marker}${text}\n`);
    } else {
      this.out.push(`\n\n${text}\n\n`);
    }
  }

  private endTable(): void {
    if (this.tableRows.length === 0) return;
    this.out.push(`\n\n${markdownTable(this.tableRows)}\n\n`);
    this.tableRows = [];
  }
}

/**
 * A list item's marker as the writer rendered it: a number or letter ("0.", "12)", "a)", "iv.") is
 * kept, as the text refers to items by it; any other glyph is a bullet; nothing (a heading's
 * outline numbering switched off) is no marker.
 */
function listMarker(rendered: string): string | undefined {
  const marker = rendered.replace(/[\s\u00a0]+/g, " ").trim();
  if (marker === "") return undefined;
  if (/^[([]?(?:\d{1,9}|[a-zA-Z]|[ivxlcdm]{1,6}|[IVXLCDM]{1,6})(?:\.\d{1,9})*[.)\]]?$/.test(marker)) return `${marker} `;
  return "- ";
}

async function extract(bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedDocument> {
  // RTF is 7-bit ASCII by definition; anything else is escaped inside it.
  const source = new TextDecoder("latin1").decode(bytes);
  if (!source.trimStart().startsWith("{\\rtf")) throw new DocumentExtractionError("the file is not RTF (it does not start with {\\rtf)");
  return { text: new RtfReader(source, options).read(), notes: [] };
}

const extractor: FormatExtractor = { extract };

export function create(): FormatExtractor {
  return extractor;
}
