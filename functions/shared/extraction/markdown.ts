import { htmlToText } from "./formats/html.ts";
import { convertText, normalizeNewlines } from "./text-decoding.ts";

/**
 * The Markdown side shared by the formats. HTML goes through the service's own HTML converter
 * (headings, lists, tables, links), so DOCX, EPUB, ODT and e-mail bodies read exactly like an
 * uploaded HTML page.
 */

export function htmlToMarkdown(html: string): string {
  return convertText(normalizeNewlines(html), "html", htmlToText);
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => HTML_ESCAPES[char]!);
}

/** Runs of whitespace (line breaks included) become one space. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Rows as a Markdown table, the first row as its header. Pipes are escaped and line breaks inside
 * a cell become spaces, so every row stays one line and the chunker can split between rows.
 * Trailing empty columns are dropped; a table whose rows are all empty renders as nothing.
 */
export function markdownTable(rows: readonly (readonly string[])[]): string {
  const cleaned = rows.map((row) => row.map((cell) => collapseWhitespace(cell).replace(/\|/g, "\\|")));
  const kept = cleaned.filter((row) => row.some((cell) => cell !== ""));
  if (kept.length === 0) return "";
  let width = 0;
  for (const row of kept) {
    for (let column = row.length - 1; column >= width; column--) {
      if (row[column] !== "") {
        width = column + 1;
        break;
      }
    }
  }
  const line = (row: readonly string[]) => {
    let out = "|";
    for (let column = 0; column < width; column++) out += ` ${row[column] ?? ""} |`;
    return out;
  };
  const lines = [line(kept[0]!), `|${" --- |".repeat(width)}`];
  for (let index = 1; index < kept.length; index++) lines.push(line(kept[index]!));
  return lines.join("\n");
}

/** Joins blocks with one blank line, skipping empty ones. */
export function joinBlocks(blocks: readonly string[]): string {
  return blocks.filter((block) => block.trim() !== "").join("\n\n");
}

/**
 * Assembles a document from parts whose start offsets matter (pages, slides, sheets): each part is
 * appended after a blank line and its offset recorded, empty parts included, so offsets stay one
 * per part.
 */
export class OffsetWriter {
  private readonly parts: string[] = [];
  private length = 0;

  /**
   * Appends a part and returns the offset where it starts. `separator` joins it to what came
   * before: a blank line by default; a PDF page whose paragraph runs on from the previous page
   * joins with a line break, or with nothing where a word was hyphenated over the page break.
   */
  append(text: string, separator = "\n\n"): number {
    if (this.length > 0 && text !== "") {
      this.parts.push(separator);
      this.length += separator.length;
    }
    const offset = this.length;
    this.parts.push(text);
    this.length += text.length;
    return offset;
  }

  toString(): string {
    return this.parts.join("");
  }
}
