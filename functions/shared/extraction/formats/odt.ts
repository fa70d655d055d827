import { DocumentParseError } from "../limits.ts";
import { escapeHtml, htmlToMarkdown } from "../markdown.ts";
import type { ExtractedDocument, ExtractionOptions, FormatExtractor } from "../types.ts";
import { isElement, parseXml, type XmlElement, type XmlNode } from "../xml.ts";
import { openContainer, textOf } from "../zip.ts";

/**
 * OpenDocument text (.odt): content.xml mapped element by element onto HTML (headings by outline
 * level, paragraphs, lists, tables, links), then the service's HTML converter to Markdown.
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
  const archive = openContainer(bytes, { label: LABEL, limits: options.limits, want: (name) => name === "content.xml" || name === "mimetype" });
  const content = textOf(archive, "content.xml");
  if (content === undefined) throw new DocumentParseError("the file is not an OpenDocument text (it has no content.xml)");
  const root = parseXml(content, LABEL);
  const html: string[] = [];
  renderNodes(root.children, html);
  return { text: htmlToMarkdown(html.join("")), notes: [] };
}

function renderNodes(nodes: readonly XmlNode[], out: string[]): void {
  for (const node of nodes) {
    if (isElement(node)) renderElement(node, out);
    else out.push(escapeHtml(node));
  }
}

function wrap(tag: string, element: XmlElement, out: string[], attributes = ""): void {
  out.push(`<${tag}${attributes}>`);
  renderNodes(element.children, out);
  out.push(`</${tag}>`);
}

function renderElement(element: XmlElement, out: string[]): void {
  if (SKIPPED.has(element.name)) return;
  switch (element.name) {
    case "text:h": {
      const level = Math.min(6, Math.max(1, Number(element.attributes["text:outline-level"] ?? 1) || 1));
      return wrap(`h${level}`, element, out);
    }
    case "text:p":
      return wrap("p", element, out);
    case "text:list":
      return wrap("ul", element, out);
    case "text:list-item":
    case "text:list-header":
      return wrap("li", element, out);
    case "table:table":
      return wrap("table", element, out);
    case "table:table-header-rows":
      return wrap("thead", element, out);
    case "table:table-row":
      return wrap("tr", element, out);
    case "table:table-cell":
    case "table:covered-table-cell":
      return wrap("td", element, out);
    case "text:a":
      return wrap("a", element, out, ` href="${escapeHtml(element.attributes["xlink:href"] ?? "")}"`);
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
      renderNodes(element.children, out);
  }
}

export const extractor: FormatExtractor = { extract };
