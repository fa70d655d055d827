import type { DocumentFormatId } from "../domain/catalogs/document-formats.ts";
import type { FormatExtractor } from "./types.ts";

/**
 * The port side of the format catalog (domain/catalogs/document-formats.ts): the module that reads
 * each format, imported on first use (a plain `() => import(...)`: a table no code calls is dropped
 * from the bundle with the modules it names). Every module a port loads exports `create`; the table
 * is typed by the catalog's ids, so a catalog row without its module does not type-check. The
 * functions that extract are bundled with code splitting (lib/bundling.ts), so each import here is
 * a chunk of its own that Node reads on the first document of that format.
 */
export interface FormatModule {
  create(): FormatExtractor;
}

// Typed rather than inferred from the imports: the modules import types back from here.
export const FORMAT_MODULES: Readonly<Record<DocumentFormatId, () => Promise<FormatModule>>> = {
  text: () => import("./formats/text.ts"),
  markdown: () => import("./formats/markdown.ts"),
  html: () => import("./formats/html.ts"),
  json: () => import("./formats/json.ts"),
  jsonl: () => import("./formats/jsonl.ts"),
  csv: () => import("./formats/csv.ts"),
  tsv: () => import("./formats/tsv.ts"),
  pdf: () => import("./formats/pdf.ts"),
  docx: () => import("./formats/docx.ts"),
  pptx: () => import("./formats/pptx.ts"),
  spreadsheet: () => import("./formats/spreadsheet.ts"),
  odt: () => import("./formats/odt.ts"),
  epub: () => import("./formats/epub.ts"),
  rtf: () => import("./formats/rtf.ts"),
  email: () => import("./formats/email.ts"),
  image: () => import("./formats/image.ts"),
};
