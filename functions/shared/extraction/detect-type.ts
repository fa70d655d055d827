import { DOCUMENT_FORMATS } from "../domain/catalogs/document-formats.ts";
import type { FileType } from "../domain/catalogs/file-types.ts";

/**
 * The MIME type a file's bytes are, as a document's `properties.mimeType` reports it. The declared
 * type and the name only choose the reader (file-types.ts); what the document says it is comes from
 * its bytes (`file-type`, magic numbers and container manifests), so an OpenDocument spreadsheet is
 * `application/vnd.oasis.opendocument.spreadsheet` even though it is read by the same module as
 * XLSX, and a JPEG sent as `image/png` says `image/jpeg`.
 *
 * Only a detection that names a type the registry knows replaces the resolved one: text has no
 * magic number (file-type recognises none of CSV, Markdown, HTML or e-mail), and the generic
 * containers it falls back to (`application/zip`, `application/x-cfb` for a legacy .xls, XML) are
 * less precise than the format the name or the declared type already gave.
 */
const KNOWN_MIME_TYPES: ReadonlySet<string> = new Set(Object.values(DOCUMENT_FORMATS).flatMap((format) => format.mimeTypes));

export async function detectedMimeType(bytes: Uint8Array, resolved: FileType): Promise<string> {
  const { fileTypeFromBuffer } = await import("file-type");
  const detected = await fileTypeFromBuffer(bytes).catch(() => undefined);
  return detected && KNOWN_MIME_TYPES.has(detected.mime) ? detected.mime : resolved.mimeType;
}
