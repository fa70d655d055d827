import { containerLimits, DocumentExtractionError } from "../limits.ts";
import { escapeHtml, htmlToMarkdown } from "../markdown.ts";
import type { ExtractedDocument, ExtractionOptions, FormatExtractor } from "../types.ts";
import { descendants, isElement, parseXml, type XmlElement, type XmlNode } from "../xml.ts";
import { openContainer, textOf } from "../zip.ts";

/**
 * OpenDocument text (.odt): content.xml mapped element by element onto HTML (headings by outline
 * level, paragraphs, lists, tables, links), then the service's HTML converter to Markdown. Lists
 * are numbered as their list style says (styles.xml and content.xml's automatic styles): numbered
 * or bulleted per level, the start value, the number format (1, a, A, i, I), and numbering that
 * continues from an earlier list, so "section 0 ... section 12" stay the numbers the text cites.
 */

const LABEL = "OpenDocument";

/** Parts of content.xml that hold no reading matter. */
const SKIPPED = new Set([
  "text:sequence-decls",
  "text:tracked-changes",
  "office:forms",
  "text:note-citation",
  "office:annotation",
  "svg:title",
  "svg:desc",
  "text:bookmark-ref",
]);

async function extract(bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedDocument> {
  const archive = openContainer(bytes, {
    label: LABEL,
    limits: containerLimits(options.limits, "odt"),
    want: (name) => name === "content.xml" || name === "styles.xml" || name === "mimetype",
  });
  const content = textOf(archive, "content.xml");
  if (content === undefined) throw new DocumentExtractionError("the file is not an OpenDocument text (it has no content.xml)");
  const root = parseXml(content, LABEL);
  const styles = textOf(archive, "styles.xml");
  const renderer = new Renderer(listStyles([...(styles === undefined ? [] : [parseXml(styles, LABEL)]), root]));
  renderer.nodes(root.children);
  return { text: htmlToMarkdown(renderer.out.join("")), notes: [] };
}

interface ListLevelStyle {
  numbered: boolean;
  start: number;
  /** HTML's <ol type>: 1, a, A, i or I. */
  type: string;
}

/** Every list style by name: its levels (1-based), as numbered or bulleted. */
function listStyles(roots: readonly XmlElement[]): Map<string, Map<number, ListLevelStyle>> {
  const styles = new Map<string, Map<number, ListLevelStyle>>();
  for (const root of roots) {
    for (const style of descendants(root, "text:list-style")) {
      const name = style.attributes["style:name"];
      if (!name) continue;
      const levels = new Map<number, ListLevelStyle>();
      for (const level of style.children) {
        if (!isElement(level)) continue;
        const number = Number(level.attributes["text:level"] ?? 1) || 1;
        const format = level.attributes["style:num-format"] ?? "";
        const numbered = level.name === "text:list-level-style-number" && format !== "";
        const start = Number.parseInt(level.attributes["text:start-value"] ?? "1", 10);
        levels.set(number, { numbered, start: Number.isFinite(start) ? start : 1, type: /^[aAiI]$/.test(format) ? format : "1" });
      }
      styles.set(name, levels);
    }
  }
  return styles;
}

interface OpenList {
  style: string | undefined;
  level: number;
  /** The number the next item takes. */
  next: number;
  id: string | undefined;
}

class Renderer {
  readonly out: string[] = [];
  private readonly lists: OpenList[] = [];
  /** Where each list style's numbering stands per level, and each identified list's, for lists that continue one. */
  private readonly lastByStyle = new Map<string, number>();
  private readonly lastById = new Map<string, number>();

  constructor(private readonly styles: Map<string, Map<number, ListLevelStyle>>) {}

  nodes(nodes: readonly XmlNode[]): void {
    for (const node of nodes) {
      if (isElement(node)) this.element(node);
      else this.out.push(escapeHtml(node));
    }
  }

  private wrap(tag: string, element: XmlElement, attributes = ""): void {
    this.out.push(`<${tag}${attributes}>`);
    this.nodes(element.children);
    this.out.push(`</${tag}>`);
  }

  /**
   * A list as <ol>/<ul> with the start its style and its continuation give. A nested list without
   * a style of its own takes the enclosing list's, one level down, as ODF says.
   */
  private list(element: XmlElement): void {
    const parent = this.lists[this.lists.length - 1];
    const style = element.attributes["text:style-name"] ?? parent?.style;
    const level = (parent?.level ?? 0) + 1;
    const levelStyle = style === undefined ? undefined : this.styles.get(style)?.get(level);
    if (!levelStyle?.numbered) {
      this.lists.push({ style, level, next: 1, id: undefined });
      this.wrap("ul", element);
      this.lists.pop();
      return;
    }
    const styleKey = `${style}#${level}`;
    const continued = element.attributes["text:continue-list"];
    let next = levelStyle.start;
    if (continued !== undefined && this.lastById.has(continued)) next = this.lastById.get(continued)! + 1;
    else if (element.attributes["text:continue-numbering"] === "true" && this.lastByStyle.has(styleKey)) next = this.lastByStyle.get(styleKey)! + 1;
    const list: OpenList = { style, level, next, id: element.attributes["xml:id"] };
    this.lists.push(list);
    const type = levelStyle.type === "1" ? "" : ` type="${levelStyle.type}"`;
    this.wrap("ol", element, ` start="${next}"${type}`);
    this.lists.pop();
    this.lastByStyle.set(styleKey, list.next - 1);
    if (list.id !== undefined) this.lastById.set(list.id, list.next - 1);
  }

  /** An item, numbered explicitly in a numbered list: an unnumbered list-header between items must not shift the numbers. */
  private item(element: XmlElement): void {
    const list = this.lists[this.lists.length - 1];
    const restart = Number.parseInt(element.attributes["text:start-value"] ?? "", 10);
    if (list && Number.isFinite(restart)) list.next = restart;
    const numbered = list !== undefined && this.styles.get(list.style ?? "")?.get(list.level)?.numbered === true && element.name === "text:list-item";
    this.wrap("li", element, numbered ? ` value="${list.next}"` : "");
    if (numbered) list.next++;
  }

  private element(element: XmlElement): void {
    if (SKIPPED.has(element.name)) return;
    const out = this.out;
    switch (element.name) {
      case "text:h": {
        const level = Math.min(6, Math.max(1, Number(element.attributes["text:outline-level"] ?? 1) || 1));
        return this.wrap(`h${level}`, element);
      }
      case "text:p":
        return this.wrap("p", element);
      case "text:list":
        return this.list(element);
      case "text:list-item":
      case "text:list-header":
        return this.item(element);
      case "table:table":
        return this.wrap("table", element);
      case "table:table-header-rows":
        return this.wrap("thead", element);
      case "table:table-row":
        return this.wrap("tr", element);
      case "table:table-cell":
      case "table:covered-table-cell":
        return this.wrap("td", element);
      case "text:a":
        return this.wrap("a", element, ` href="${escapeHtml(element.attributes["xlink:href"] ?? "")}"`);
      case "text:s":
        out.push(" ".repeat(Math.min(64, Math.max(1, Number(element.attributes["text:c"] ?? 1) || 1))));
        return;
      case "text:tab":
        out.push(" ");
        return;
      case "text:line-break":
        out.push("<br>");
        return;
      default:
        this.nodes(element.children);
    }
  }
}

const extractor: FormatExtractor = { extract };

export function create(): FormatExtractor {
  return extractor;
}
