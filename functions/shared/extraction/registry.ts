import type { FormatExtractor } from "./types.ts";

/**
 * The document formats the extraction layer reads, by format id: how they are named to people,
 * the MIME types and extensions that mean them, and the module that reads them. Modules load on
 * first use, so importing this table costs nothing and HTTP functions that only need the names
 * never load a parser library. Adding a format is one module under formats/ and one row here.
 */

export interface DocumentFormat {
  /** How the format is named to people. */
  readonly label: string;
  /** The MIME type stored with the object and reported back, first; then the others that mean the same. */
  readonly mimeTypes: readonly string[];
  /** Lowercase, with the leading dot. */
  readonly extensions: readonly string[];
  /** PDF and TIFF: the worker can split them into page ranges. */
  readonly paged?: boolean;
  readonly load: () => Promise<{ extractor: FormatExtractor }>;
}

export const DOCUMENT_FORMATS = {
  pdf: {
    label: "PDF",
    mimeTypes: ["application/pdf", "application/x-pdf"],
    extensions: [".pdf"],
    paged: true,
    load: () => import("./formats/pdf.ts"),
  },
  docx: {
    label: "Word document",
    mimeTypes: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.ms-word.document.macroenabled.12"],
    extensions: [".docx", ".docm"],
    load: () => import("./formats/docx.ts"),
  },
  pptx: {
    label: "PowerPoint presentation",
    mimeTypes: ["application/vnd.openxmlformats-officedocument.presentationml.presentation", "application/vnd.ms-powerpoint.presentation.macroenabled.12"],
    extensions: [".pptx", ".pptm"],
    load: () => import("./formats/pptx.ts"),
  },
  spreadsheet: {
    label: "spreadsheet",
    mimeTypes: [
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      "application/vnd.ms-excel.sheet.macroenabled.12",
      "application/vnd.ms-excel",
      "application/vnd.oasis.opendocument.spreadsheet",
    ],
    extensions: [".xlsx", ".xlsm", ".xls", ".ods"],
    load: () => import("./formats/spreadsheet.ts"),
  },
  odt: {
    label: "OpenDocument text",
    mimeTypes: ["application/vnd.oasis.opendocument.text"],
    extensions: [".odt"],
    load: () => import("./formats/odt.ts"),
  },
  epub: {
    label: "EPUB",
    mimeTypes: ["application/epub+zip"],
    extensions: [".epub"],
    load: () => import("./formats/epub.ts"),
  },
  rtf: {
    label: "Rich Text Format",
    mimeTypes: ["application/rtf", "text/rtf", "application/x-rtf", "text/richtext"],
    extensions: [".rtf"],
    load: () => import("./formats/rtf.ts"),
  },
  email: {
    label: "e-mail message",
    mimeTypes: ["message/rfc822", "application/eml"],
    extensions: [".eml"],
    load: () => import("./formats/email.ts"),
  },
  image: {
    label: "image (OCR)",
    mimeTypes: ["image/png", "image/jpeg", "image/tiff", "image/webp", "image/jpg", "image/pjpeg", "image/x-png", "image/tif"],
    extensions: [".png", ".jpg", ".jpeg", ".jpe", ".tif", ".tiff", ".webp"],
    load: () => import("./formats/image.ts"),
  },
} as const satisfies Record<string, DocumentFormat>;

export type DocumentFormatId = keyof typeof DOCUMENT_FORMATS;

export function documentFormat(id: DocumentFormatId): DocumentFormat {
  return DOCUMENT_FORMATS[id];
}

/** The extractor of a format, loaded on first use. */
export async function loadExtractor(id: DocumentFormatId): Promise<FormatExtractor> {
  return (await DOCUMENT_FORMATS[id].load()).extractor;
}
