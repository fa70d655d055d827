import { DocumentParseError } from "../limits.ts";
import { htmlToMarkdown } from "../markdown.ts";
import type { ExtractedDocument, ExtractionOptions, FormatExtractor } from "../types.ts";
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
    limits: options.limits,
    want: (name) => !MEDIA.test(name),
    legacyHint: "a legacy .doc file (save it as .docx)",
  });
  if (!archive.files.has("word/document.xml")) throw new DocumentParseError("the file is not a Word document (it has no word/document.xml)");
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
    throw new DocumentParseError(`the Word file could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  return { text: htmlToMarkdown(headerRows(html)), notes: [] };
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

export const extractor: FormatExtractor = { extract };
