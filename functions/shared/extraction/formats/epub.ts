import { checkDeadline, checkPageCount, containerLimits, DocumentExtractionError } from "../limits.ts";
import { htmlToMarkdown, joinBlocks } from "../markdown.ts";
import type { ExtractedDocument, ExtractionOptions, FormatExtractor } from "../types.ts";
import { descendants, firstDescendant, parseXml } from "../xml.ts";
import { openContainer, textOf } from "../zip.ts";

/**
 * EPUB 2 and 3: the package document named by META-INF/container.xml gives the reading order (the
 * spine); each XHTML item is converted to Markdown by the service's HTML converter. Images, fonts
 * and styles are never inflated.
 */

const LABEL = "EPUB";
const TEXT_PARTS = /\.(xml|opf|xhtml|html?|htm)$/i;
/** The chapter's <title> usually repeats the book's; it must not become a heading in every chapter. */
const TITLE_ELEMENT = /<title[^>]*>[\s\S]*?<\/title>/gi;

async function extract(bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedDocument> {
  const { limits } = options;
  const archive = openContainer(bytes, { label: LABEL, limits: containerLimits(limits, "epub"), want: (name) => TEXT_PARTS.test(name) });
  const container = textOf(archive, "META-INF/container.xml");
  if (container === undefined) throw new DocumentExtractionError("the file is not an EPUB (it has no META-INF/container.xml)");
  const packagePath = firstDescendant(parseXml(container, LABEL), "rootfile")?.attributes["full-path"];
  const packageXml = packagePath === undefined ? undefined : textOf(archive, packagePath);
  if (packagePath === undefined || packageXml === undefined) throw new DocumentExtractionError("the EPUB file is corrupt: its package document is missing");

  const packageDocument = parseXml(packageXml, LABEL);
  const folder = packagePath.includes("/") ? packagePath.slice(0, packagePath.lastIndexOf("/") + 1) : "";
  const manifest = new Map<string, string>();
  for (const item of [...descendants(packageDocument, "item"), ...descendants(packageDocument, "opf:item")]) {
    const { id, href } = item.attributes;
    if (id && href) manifest.set(id, folder + decodeURIComponent(href.split("#")[0]!));
  }
  const spine = [...descendants(packageDocument, "itemref"), ...descendants(packageDocument, "opf:itemref")];
  checkPageCount(spine.length, limits, LABEL, "chapters");

  const chapters: string[] = [];
  // A spine naming one chapter many times (9,999 times in a 67 KB file) would have it converted as
  // often: each part is read once, where the spine first names it.
  const read = new Set<string>();
  for (const itemref of spine) {
    checkDeadline(limits, LABEL);
    const path = manifest.get(itemref.attributes.idref ?? "");
    if (path === undefined || read.has(path)) continue;
    read.add(path);
    const xhtml = textOf(archive, path);
    if (xhtml === undefined) continue;
    chapters.push(htmlToMarkdown(xhtml.replace(TITLE_ELEMENT, "")));
  }
  return { text: joinBlocks(chapters), notes: [] };
}

const extractor: FormatExtractor = { extract };

export function create(): FormatExtractor {
  return extractor;
}
