import { Parser } from "htmlparser2";
import { containerLimits, DocumentExtractionError } from "../limits.ts";
import { htmlToMarkdown } from "../markdown.ts";
import type { ExtractedDocument, ExtractionOptions, FormatExtractor } from "../types.ts";
import { descendants, firstDescendant, parseXml, refuseEntityDeclarations } from "../xml.ts";
import { openContainer, rezipStored } from "../zip.ts";

/**
 * Word (.docx) through mammoth, which maps Word's styles to semantic HTML (headings, lists,
 * tables), then the service's HTML converter to Markdown. mammoth's own Markdown writer drops
 * tables, hence the detour. mammoth opens the ZIP itself, so it is handed a copy holding exactly
 * the parts we inflated within the limits; embedded media are left empty (images become their alt
 * text, never base64 in the text).
 */

const LABEL = "Word";
const MEDIA = /^word\/(media|embeddings|fonts)\//;

async function extract(bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedDocument> {
  const archive = openContainer(bytes, {
    label: LABEL,
    limits: containerLimits(options.limits, "docx"),
    want: (name) => !MEDIA.test(name),
    legacyHint: "a legacy .doc file (save it as .docx)",
  });
  if (!archive.files.has("word/document.xml")) throw new DocumentExtractionError("the file is not a Word document (it has no word/document.xml)");
  for (const entry of archive.entries) {
    if (!archive.files.has(entry.name) && !entry.name.endsWith("/")) archive.files.set(entry.name, new Uint8Array(0));
  }
  const { default: mammoth } = await import("mammoth");
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(rezipStored(archive.files)) },
      { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
    );
    html = result.value;
  } catch (error) {
    throw new DocumentExtractionError(`the Word file could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  return { text: htmlToMarkdown(listNumbers(headerRows(html), archive.files)), notes: [] };
}

interface LevelFormat {
  start: number;
  /** Word's w:numFmt: decimal, lowerLetter, upperRoman, bullet, none... */
  format: string;
}

/** HTML's <ol type> for Word's number formats that have one. */
const HTML_LIST_TYPES: Record<string, string> = { decimal: "1", lowerLetter: "a", upperLetter: "A", lowerRoman: "i", upperRoman: "I" };

/**
 * mammoth writes every numbered list as a plain <ol>, so a list Word numbers from 0, or one that
 * resumes at 11 after a heading, would read 1, 2, 3. The numbers are Word's to give: each numbered
 * paragraph of document.xml (w:numPr, directly or through its style) is counted as numbering.xml
 * says (start values, overrides, deeper levels restarting), and mammoth's list items, which come
 * in the same order, are given their number (<li value>) and their list its format (<ol type>).
 * When the two do not line up one to one (content mammoth leaves out), the HTML is left as it was.
 */
function listNumbers(html: string, files: Map<string, Uint8Array>): string {
  if (!html.includes("<ol")) return html;
  const numberingXml = files.get("word/numbering.xml");
  const documentXml = files.get("word/document.xml");
  if (!numberingXml || !documentXml) return html;
  const decoder = new TextDecoder();
  const labels = numberedParagraphs(decoder.decode(documentXml), numbering(decoder.decode(numberingXml)), paragraphStyleNumbering(files.get("word/styles.xml")));
  const items = [...html.matchAll(/<li(?![^>]*\bid="(?:footnote|endnote|comment)-)[\s>]/g)];
  if (items.length !== labels.length) return html;
  let index = 0;
  const lists: { tag: string; typed: boolean; at: number }[] = [];
  const parts: string[] = [];
  let last = 0;
  for (const match of html.matchAll(/<(\/?)(ol|ul|li)((?:\s[^>]*)?)>/g)) {
    const [whole, closing, tag, attributes] = match;
    if (tag === "li" && !closing && /\bid="(?:footnote|endnote|comment)-/.test(attributes!)) continue;
    if (closing) {
      if (tag !== "li") lists.pop();
      continue;
    }
    if (tag === "ol" || tag === "ul") {
      lists.push({ tag: tag!, typed: false, at: parts.length });
      parts.push(html.slice(last, match.index), whole!);
      last = match.index + whole!.length;
      continue;
    }
    const label = labels[index++]!;
    const list = lists[lists.length - 1];
    if (!list || list.tag !== "ol" || label.format === "bullet") continue;
    parts.push(html.slice(last, match.index), `<li value="${label.number}"${attributes}>`);
    last = match.index + whole!.length;
    const type = HTML_LIST_TYPES[label.format];
    if (!list.typed && type && type !== "1") parts[list.at + 1] = parts[list.at + 1]!.replace(/^<ol/, `<ol type="${type}"`);
    list.typed = true;
  }
  parts.push(html.slice(last));
  return parts.join("");
}

interface Numbering {
  /** numId → its abstract definition's levels, with the num's own start overrides. */
  levels: Map<string, Map<number, LevelFormat>>;
}

function numbering(xml: string): Numbering {
  const root = parseXml(xml, LABEL);
  const abstract = new Map<string, Map<number, LevelFormat>>();
  for (const definition of descendants(root, "w:abstractNum")) {
    const levels = new Map<number, LevelFormat>();
    for (const level of descendants(definition, "w:lvl")) {
      const start = Number.parseInt(firstDescendant(level, "w:start")?.attributes["w:val"] ?? "1", 10);
      levels.set(Number(level.attributes["w:ilvl"] ?? 0), {
        start: Number.isFinite(start) ? start : 1,
        format: firstDescendant(level, "w:numFmt")?.attributes["w:val"] ?? "decimal",
      });
    }
    abstract.set(definition.attributes["w:abstractNumId"] ?? "", levels);
  }
  const levels = new Map<string, Map<number, LevelFormat>>();
  for (const num of descendants(root, "w:num")) {
    const base = abstract.get(firstDescendant(num, "w:abstractNumId")?.attributes["w:val"] ?? "") ?? new Map<number, LevelFormat>();
    const own = new Map(base);
    for (const override of descendants(num, "w:lvlOverride")) {
      const ilvl = Number(override.attributes["w:ilvl"] ?? 0);
      const start = Number.parseInt(firstDescendant(override, "w:startOverride")?.attributes["w:val"] ?? "", 10);
      const level = own.get(ilvl);
      if (level && Number.isFinite(start)) own.set(ilvl, { ...level, start });
    }
    levels.set(num.attributes["w:numId"] ?? "", own);
  }
  return { levels };
}

/** Paragraph styles that number their paragraphs (a "List Number" style): styleId → numId and level. */
function paragraphStyleNumbering(xml: Uint8Array | undefined): Map<string, { numId: string; ilvl: number }> {
  const styles = new Map<string, { numId: string; ilvl: number }>();
  if (!xml) return styles;
  for (const style of descendants(parseXml(new TextDecoder().decode(xml), LABEL), "w:style")) {
    const numId = firstDescendant(style, "w:numId")?.attributes["w:val"];
    if (numId === undefined) continue;
    styles.set(style.attributes["w:styleId"] ?? "", { numId, ilvl: Number(firstDescendant(style, "w:ilvl")?.attributes["w:val"] ?? 0) });
  }
  return styles;
}

/** The number and format of every numbered paragraph of the body, in order, counted as Word counts. */
function numberedParagraphs(xml: string, numbering: Numbering, styles: Map<string, { numId: string; ilvl: number }>): { number: number; format: string }[] {
  refuseEntityDeclarations(xml, LABEL);
  const labels: { number: number; format: string }[] = [];
  const counters = new Map<string, number[]>();
  let inParagraph = false;
  let numId: string | undefined;
  let ilvl: number | undefined;
  let style: string | undefined;
  let inNumPr = false;
  const finish = () => {
    const fromStyle = style === undefined ? undefined : styles.get(style);
    const id = numId ?? fromStyle?.numId;
    if (id === undefined || id === "0") return;
    const levelIndex = ilvl ?? fromStyle?.ilvl ?? 0;
    const level = numbering.levels.get(id)?.get(levelIndex);
    if (!level) return;
    const count = counters.get(id) ?? [];
    counters.set(id, count);
    const number = count[levelIndex] === undefined ? level.start : count[levelIndex]! + 1;
    count[levelIndex] = number;
    count.length = levelIndex + 1; // deeper levels start again under a new item
    labels.push({ number, format: level.format });
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === "w:p") {
          inParagraph = true;
          numId = undefined;
          ilvl = undefined;
          style = undefined;
        } else if (!inParagraph) {
          return;
        } else if (name === "w:numPr") {
          inNumPr = true;
        } else if (name === "w:numId" && inNumPr) {
          numId = attributes["w:val"];
        } else if (name === "w:ilvl" && inNumPr) {
          ilvl = Number(attributes["w:val"] ?? 0);
        } else if (name === "w:pStyle") {
          style = attributes["w:val"];
        }
      },
      onclosetag(name) {
        if (name === "w:numPr") inNumPr = false;
        if (name === "w:p" && inParagraph) {
          inParagraph = false;
          finish();
        }
      },
    },
    { xmlMode: true, recognizeSelfClosing: true },
  );
  parser.write(xml);
  parser.end();
  return labels;
}

/**
 * mammoth writes every cell as <td> unless Word marked the row as a repeating header, and the HTML
 * converter only writes a Markdown table's separator under a header row; without it the rows are
 * not a Markdown table at all. Word tables almost always open with their column names, so the
 * first row of each table is read as its header.
 */
function headerRows(html: string): string {
  return html.replace(/<table>(\s*(?:<thead>)?\s*<tr>)([\s\S]*?)<\/tr>/g, (_, open: string, cells: string) =>
    `<table>${open}${cells.replace(/<td(?=[\s>])/g, "<th").replace(/<\/td>/g, "</th>")}</tr>`,
  );
}

const extractor: FormatExtractor = { extract };

export function create(): FormatExtractor {
  return extractor;
}
