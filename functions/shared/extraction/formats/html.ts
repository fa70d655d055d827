import type { FormatExtractor } from "../types.ts";
import { Parser } from "htmlparser2";
import { DocumentExtractionError } from "../extraction-error.ts";
import { textFormatExtractor } from "../text-decoding.ts";

/** HTML read as Markdown-like text: headings, lists with their numbers, data tables, code fences. */
const extractor = textFormatExtractor("html", htmlToText);

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
      throw new DocumentExtractionError(`the HTML nests elements more than ${MAX_HTML_DEPTH} levels deep`);
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

export function htmlToText(html: string): string {
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

export function create(): FormatExtractor {
  return extractor;
}
