import { checkDeadline, checkPageCount, containerLimits, DocumentExtractionError } from "../limits.ts";
import { collapseWhitespace, joinBlocks, markdownTable, OffsetWriter } from "../markdown.ts";
import type { ExtractedDocument, ExtractedSection, ExtractionOptions, FormatExtractor } from "../types.ts";
import { childElements, descendants, firstChild, firstDescendant, parseXml, textContent, type XmlElement } from "../xml.ts";
import { openContainer, textOf, type ZipArchive } from "../zip.ts";

/**
 * PowerPoint (.pptx) read straight from its XML with fflate and htmlparser2: slides in the
 * presentation's order, each opening with its title as a `##` heading (or "Slide N"), then its
 * text boxes (placeholder bullets as list items), tables as Markdown, and its speaker notes. Each
 * slide is a section carrying its `slide` number.
 */

const LABEL = "PowerPoint";
const WANTED = /^ppt\/(presentation\.xml|_rels\/presentation\.xml\.rels|slides\/|notesSlides\/)/;
const TITLE_TYPES = new Set(["title", "ctrTitle"]);
/** Placeholders whose paragraphs the layout bullets by default. */
const BULLETED_TYPES = new Set(["body", "obj"]);

async function extract(bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedDocument> {
  const { limits } = options;
  const archive = openContainer(bytes, {
    label: LABEL,
    limits: containerLimits(limits, "pptx"),
    want: (name) => WANTED.test(name),
    legacyHint: "a legacy .ppt file (save it as .pptx)",
  });
  const slidePaths = slideOrder(archive);
  checkPageCount(slidePaths.length, limits, LABEL, "slides");

  const writer = new OffsetWriter();
  const sections: ExtractedSection[] = [];
  slidePaths.forEach((path, index) => {
    checkDeadline(limits, LABEL);
    const number = index + 1;
    const slide = parseXml(textOf(archive, path) ?? "", LABEL);
    const { title, blocks } = readShapes(slide);
    const notesPath = relationshipTarget(archive, path, "/notesSlide");
    const notes = notesPath ? notesText(parseXml(textOf(archive, notesPath) ?? "", LABEL)) : "";
    const markdown = joinBlocks([`## ${title || `Slide ${number}`}`, ...blocks, notes ? `Speaker notes: ${notes}` : ""]);
    sections.push({ offset: writer.append(markdown), metadata: { slide: number } });
  });
  return { text: writer.toString(), sections, totalPages: slidePaths.length, notes: [] };
}

function slideOrder(archive: ZipArchive): string[] {
  const presentationXml = textOf(archive, "ppt/presentation.xml");
  if (presentationXml === undefined) throw new DocumentExtractionError("the file is not a PowerPoint presentation (it has no ppt/presentation.xml)");
  const relationships = readRelationships(archive, "ppt/presentation.xml");
  const slideIds = descendants(parseXml(presentationXml, LABEL), "p:sldId");
  // A slide list naming one part many times (9,999 times in a 57 KB file) would have it read as
  // often; PowerPoint never lists a slide twice, so each part is read once, where first listed.
  const paths = new Set<string>();
  for (const slideId of slideIds) {
    const target = relationships.get(slideId.attributes["r:id"] ?? "");
    if (target && archive.files.has(target.path)) paths.add(target.path);
  }
  return [...paths];
}

interface Relationship {
  type: string;
  path: string;
}

/** A part's relationships by id, targets resolved to archive paths. */
function readRelationships(archive: ZipArchive, partPath: string): Map<string, Relationship> {
  const slash = partPath.lastIndexOf("/");
  const folder = partPath.slice(0, slash);
  const relsXml = textOf(archive, `${folder}/_rels/${partPath.slice(slash + 1)}.rels`);
  const relationships = new Map<string, Relationship>();
  if (relsXml === undefined) return relationships;
  for (const relationship of descendants(parseXml(relsXml, LABEL), "Relationship")) {
    const { Id: id, Type: type = "", Target: target, TargetMode: mode } = relationship.attributes;
    if (!id || !target || mode === "External") continue;
    relationships.set(id, { type, path: resolvePath(folder, target) });
  }
  return relationships;
}

function relationshipTarget(archive: ZipArchive, partPath: string, typeSuffix: string): string | undefined {
  for (const relationship of readRelationships(archive, partPath).values()) {
    if (relationship.type.endsWith(typeSuffix)) return relationship.path;
  }
  return undefined;
}

function resolvePath(folder: string, target: string): string {
  const parts = target.startsWith("/") ? [] : folder.split("/");
  for (const segment of target.replace(/^\//, "").split("/")) {
    if (segment === "..") parts.pop();
    else if (segment !== "." && segment !== "") parts.push(segment);
  }
  return parts.join("/");
}

/** The slide's title and its other content in shape-tree order (groups flattened). */
function readShapes(slide: XmlElement): { title: string; blocks: string[] } {
  const tree = firstDescendant(slide, "p:spTree");
  let title = "";
  const blocks: string[] = [];
  if (!tree) return { title, blocks };
  const pending: XmlElement[] = [...childElements(tree)].reverse();
  while (pending.length > 0) {
    const shape = pending.pop()!;
    if (shape.name === "p:grpSp") {
      pending.push(...childElements(shape).reverse());
    } else if (shape.name === "p:sp") {
      const placeholder = firstDescendant(firstChild(shape, "p:nvSpPr") ?? shape, "p:ph");
      const type = placeholder ? (placeholder.attributes.type ?? "body") : undefined;
      const body = firstChild(shape, "p:txBody");
      if (!body) continue;
      if (type && TITLE_TYPES.has(type) && !title) {
        title = collapseWhitespace(paragraphs(body).join(" "));
        continue;
      }
      blocks.push(textBody(body, type !== undefined && BULLETED_TYPES.has(type)));
    } else if (shape.name === "p:graphicFrame") {
      const table = firstDescendant(shape, "a:tbl");
      if (table) blocks.push(tableMarkdown(table));
    }
  }
  return { title, blocks };
}

function paragraphText(paragraph: XmlElement): string {
  const parts: string[] = [];
  for (const child of childElements(paragraph)) {
    if (child.name === "a:r" || child.name === "a:fld") parts.push(textContent(firstChild(child, "a:t") ?? child));
    else if (child.name === "a:br") parts.push(" ");
  }
  return collapseWhitespace(parts.join(""));
}

function paragraphs(body: XmlElement): string[] {
  return childElements(body, "a:p").map(paragraphText).filter((text) => text !== "");
}

/** Paragraphs of a text box; bulleted ones (by the placeholder's default or an explicit bullet) as list items. */
function textBody(body: XmlElement, bulletedByDefault: boolean): string {
  const lines: string[] = [];
  let bulleted = false;
  for (const paragraph of childElements(body, "a:p")) {
    const text = paragraphText(paragraph);
    if (!text) continue;
    const properties = firstChild(paragraph, "a:pPr");
    const explicitBullet = properties && (firstChild(properties, "a:buChar") ?? firstChild(properties, "a:buAutoNum"));
    const noBullet = properties && firstChild(properties, "a:buNone");
    const isItem = explicitBullet !== undefined || (bulletedByDefault && !noBullet);
    const level = Math.min(8, Number(properties?.attributes.lvl ?? 0) || 0);
    if (isItem) {
      if (!bulleted && lines.length > 0) lines.push("");
      lines.push(`${"  ".repeat(level)}- ${text}`);
    } else {
      if (lines.length > 0) lines.push("");
      lines.push(text);
    }
    bulleted = isItem;
  }
  return lines.join("\n");
}

function tableMarkdown(table: XmlElement): string {
  const rows = childElements(table, "a:tr").map((row) =>
    childElements(row, "a:tc").map((cell) => {
      const body = firstChild(cell, "a:txBody");
      return body ? paragraphs(body).join(" ") : "";
    }),
  );
  return markdownTable(rows);
}

function notesText(notes: XmlElement): string {
  const texts: string[] = [];
  for (const shape of descendants(notes, "p:sp")) {
    const placeholder = firstDescendant(shape, "p:ph");
    if (placeholder?.attributes.type !== "body") continue;
    const body = firstChild(shape, "p:txBody");
    if (body) texts.push(...paragraphs(body));
  }
  return texts.join(" ");
}

const extractor: FormatExtractor = { extract };

export function create(): FormatExtractor {
  return extractor;
}
