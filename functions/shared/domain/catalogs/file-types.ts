import { config, MAX_UPLOAD_BYTES_DEFAULT } from "../../platform/env.ts";
import { DOCUMENT_FORMATS, type DocumentFormat, type DocumentFormatId } from "./document-formats.ts";

/**
 * The formats an upload may have, from the format registry. Everything that decides whether a file
 * is accepted (the upload endpoint, the worker, the README, 422 messages) reads this.
 */

/** The formats ingestion accepts: the registry rows marked `ingested`. */
export type FileFormat = { [Id in DocumentFormatId]: (typeof DOCUMENT_FORMATS)[Id]["ingested"] extends true ? Id : never }[DocumentFormatId];

export interface FileType {
  readonly format: FileFormat;
  /** How the format is named to people. */
  readonly label: string;
  /** The MIME type stored with the object and reported back. */
  readonly mimeType: string;
  /** Other MIME types that mean the same format (lowercase, without parameters). */
  readonly mimeAliases: readonly string[];
  /** Lowercase, with the leading dot. */
  readonly extensions: readonly string[];
  /** The module reads page ranges, so the worker may spread a long file over several steps. */
  readonly paged: boolean;
  /** The format's own upload limit (before a deployment-wide MAX_UPLOAD_BYTES). */
  readonly maxBytes: number;
}

export const SUPPORTED_FILE_TYPES: readonly FileType[] = (Object.entries(DOCUMENT_FORMATS) as [DocumentFormatId, DocumentFormat][])
  .filter(([, row]) => row.ingested)
  .map(([format, row]) => ({
    format: format as FileFormat,
    label: row.label,
    mimeType: row.mimeTypes[0]!,
    mimeAliases: row.mimeTypes.slice(1),
    extensions: row.extensions,
    paged: row.paged ?? false,
    maxBytes: row.maxBytes ?? MAX_UPLOAD_BYTES_DEFAULT,
  }));

/** The largest file of this type an upload, a job or the worker accepts. */
export function uploadLimit(type: FileType): number {
  return config.maxUploadBytesOverride() ?? type.maxBytes;
}

/** The largest file of any accepted type: what a FILE URL fetch may read before its type is known. */
export function largestUploadLimit(): number {
  return Math.max(...SUPPORTED_FILE_TYPES.map(uploadLimit));
}

const byFormat = new Map(SUPPORTED_FILE_TYPES.map((type) => [type.format, type]));
const byMime = new Map<string, FileType>();
const byExtension = new Map<string, FileType>();
for (const type of SUPPORTED_FILE_TYPES) {
  for (const mime of [type.mimeType, ...type.mimeAliases]) byMime.set(mime, type);
  for (const extension of type.extensions) byExtension.set(extension, type);
}

/** MIME types that say nothing about the content, so the file name decides. */
const UNTYPED_MIME_TYPES = new Set(["", "application/octet-stream", "binary/octet-stream", "application/unknown"]);

/**
 * Windows browsers label `.csv` files with Excel's MIME type, which also names binary `.xls`
 * workbooks: with a CSV/TSV extension the file is read as text, otherwise as a workbook.
 */
const EXCEL_MIME_TYPE = "application/vnd.ms-excel";

/**
 * When the declared MIME type is a broader family of what the extension names, the extension is
 * the more precise of the two: tools send `application/json` for `.jsonl` and `text/plain` for
 * `.md` or `.csv` far more often than they mean it.
 */
const REFINED_BY_EXTENSION: Partial<Record<FileFormat, readonly FileFormat[]>> = {
  text: ["markdown", "html", "json", "jsonl", "csv", "tsv"],
  json: ["jsonl"],
  csv: ["tsv"],
};

export function fileTypeOf(format: FileFormat): FileType {
  const type = byFormat.get(format);
  if (!type) throw new Error(`no file type for format ${format}`);
  return type;
}

/** `Text/HTML; charset=UTF-8` → `text/html`. */
export function normalizeMimeType(contentType: string | null | undefined): string {
  return ((contentType ?? "").split(";", 1)[0] ?? "").trim().toLowerCase();
}

/** `reports/Q3.Summary.MD` → `.md`; no extension (or a dot file like `.env`) → `""`. */
export function fileExtension(fileName: string | null | undefined): string {
  const base = (fileName ?? "").trim().split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

/**
 * The format of an upload, or null when it is not one we accept.
 *
 * The declared MIME type wins: the client chose it explicitly and it is signed into the presigned
 * upload, so a file named `notes.md` declared as `text/html` is read as HTML. The extension only
 * decides when the MIME type says nothing (missing, `application/octet-stream`), when it is a
 * broader family of the extension's format (`text/plain` + `.csv`, `application/json` + `.jsonl`),
 * or when it is an unlisted `text/*` subtype (`text/x-log` + `.log`). A MIME type of another kind
 * (`application/pdf`) is refused whatever the name says.
 */
export function resolveFileType(input: {
  fileName?: string | null;
  contentType?: string | null;
}): FileType | null {
  const mime = normalizeMimeType(input.contentType);
  const byName = byExtension.get(fileExtension(input.fileName)) ?? null;

  if (UNTYPED_MIME_TYPES.has(mime)) return byName;
  if (mime === EXCEL_MIME_TYPE && byName && (byName.format === "csv" || byName.format === "tsv")) return byName;

  const declared = byMime.get(mime) ?? (mime.endsWith("+json") ? fileTypeOf("json") : undefined);
  if (declared) {
    const refinements = REFINED_BY_EXTENSION[declared.format];
    return byName && refinements?.includes(byName.format) ? byName : declared;
  }
  if (mime.startsWith("text/")) return byName;
  return null;
}

/** `plain text (.txt, .text, .log), Markdown (.md, .markdown), …` for error messages. */
export function describeSupportedTypes(): string {
  return SUPPORTED_FILE_TYPES.map((type) => `${type.label} (${type.extensions.join(", ")})`).join(", ");
}
