/**
 * Every file format the service knows, by format id: how it is named to people, the MIME types and
 * extensions that mean it and whether ingestion accepts it. The module that reads a format is
 * extraction/registry.ts's to load, on first use, so HTTP functions that only need the names never
 * load a parser library. Adding a format: one row here, one module under extraction/formats/
 * exporting `create`, one loader in extraction/registry.ts;
 * uploads, the worker, 422 messages and the README's list follow (catalogs/file-types.ts).
 */

export interface DocumentFormat {
  /** How the format is named to people. */
  readonly label: string;
  /** The MIME type stored with the object and reported back, first; then the others that mean the same. */
  readonly mimeTypes: readonly string[];
  /** Lowercase, with the leading dot. */
  readonly extensions: readonly string[];
  /** The module reads page ranges (`pageRange`, `stopAtMs`): the worker spreads a long file over several steps. */
  readonly paged?: boolean;
  /**
   * Largest upload accepted, when the format's reader needs less memory per byte than the default
   * assumes (MAX_UPLOAD_BYTES_DEFAULT, measured for text). Measured in bench/large-file.ts.
   */
  readonly maxBytes?: number;
  /**
   * Accepted for upload and ingested by the worker. A format whose module is written and tested
   * but not yet ready to take real traffic (its runtime not shipped, its limits not measured) stays
   * false: the upload endpoints refuse it with the accepted list.
   */
  readonly ingested: boolean;
}

export const DOCUMENT_FORMATS = {
  text: {
    label: "plain text",
    mimeTypes: ["text/plain"],
    extensions: [".txt", ".text", ".log"],
    ingested: true,
  },
  markdown: {
    label: "Markdown",
    mimeTypes: ["text/markdown", "text/x-markdown", "application/markdown", "application/x-markdown", "text/x-web-markdown"],
    extensions: [".md", ".markdown"],
    ingested: true,
  },
  html: {
    label: "HTML",
    mimeTypes: ["text/html", "application/xhtml+xml"],
    extensions: [".html", ".htm", ".xhtml"],
    ingested: true,
  },
  json: {
    label: "JSON",
    mimeTypes: ["application/json", "text/json", "application/x-json"],
    extensions: [".json"],
    ingested: true,
  },
  jsonl: {
    label: "JSON Lines",
    mimeTypes: ["application/jsonl", "application/x-ndjson", "application/jsonlines", "application/x-jsonlines", "application/ndjson"],
    extensions: [".jsonl", ".ndjson"],
    ingested: true,
  },
  csv: {
    label: "CSV",
    mimeTypes: ["text/csv", "application/csv", "text/x-csv", "application/x-csv", "text/comma-separated-values"],
    extensions: [".csv"],
    ingested: true,
  },
  tsv: {
    label: "TSV",
    mimeTypes: ["text/tab-separated-values", "text/tsv"],
    extensions: [".tsv"],
    ingested: true,
  },
  pdf: {
    label: "PDF",
    mimeTypes: ["application/pdf", "application/x-pdf"],
    extensions: [".pdf"],
    paged: true,
    // A 200 MiB PDF peaks under 1 GB in the worker: pdf.js holds the file and one page at a time,
    // and the text it yields is a small fraction of the file (bench/large-file.ts, README "Large files").
    maxBytes: 200 * 1024 * 1024,
    ingested: true,
  },
  docx: {
    label: "Word document",
    mimeTypes: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.ms-word.document.macroenabled.12"],
    extensions: [".docx", ".docm"],
    ingested: true,
  },
  pptx: {
    label: "PowerPoint presentation",
    mimeTypes: ["application/vnd.openxmlformats-officedocument.presentationml.presentation", "application/vnd.ms-powerpoint.presentation.macroenabled.12"],
    extensions: [".pptx", ".pptm"],
    ingested: true,
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
    ingested: true,
  },
  odt: {
    label: "OpenDocument text",
    mimeTypes: ["application/vnd.oasis.opendocument.text"],
    extensions: [".odt"],
    ingested: true,
  },
  epub: {
    label: "EPUB",
    mimeTypes: ["application/epub+zip"],
    extensions: [".epub"],
    ingested: true,
  },
  rtf: {
    label: "Rich Text Format",
    mimeTypes: ["application/rtf", "text/rtf", "application/x-rtf", "text/richtext"],
    extensions: [".rtf"],
    ingested: true,
  },
  email: {
    label: "e-mail message",
    mimeTypes: ["message/rfc822", "application/eml"],
    extensions: [".eml"],
    ingested: true,
  },
  image: {
    label: "image (OCR)",
    mimeTypes: ["image/png", "image/jpeg", "image/tiff", "image/webp", "image/jpg", "image/pjpeg", "image/x-png", "image/tif"],
    extensions: [".png", ".jpg", ".jpeg", ".jpe", ".tif", ".tiff", ".webp"],
    ingested: true,
  },
} as const satisfies Record<string, DocumentFormat>;

export type DocumentFormatId = keyof typeof DOCUMENT_FORMATS;
