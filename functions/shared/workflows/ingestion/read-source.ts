import type { DocumentRecord } from "../../domain/document.ts";
import type { IngestConfig } from "../../domain/ingest-config.ts";
import { resolveFileType } from "../../extraction/file-types.ts";
import { loadExtractor } from "../../extraction/index.ts";
import { extractionLimits } from "../../extraction/limits.ts";
import { isTextFormat, parseText, textExtractor } from "../../extraction/text-formats.ts";
import type { ExtractedDocument, ExtractionOptions } from "../../extraction/types.ts";
import { fetchPublicFile } from "../../fetch/public-url.ts";
import { config } from "../../platform/env.ts";
import { getObjectBytes, headObject } from "../../storage/objects.ts";
import { documentSource } from "./stored-payloads.ts";

/** A failure that retrying cannot fix (bad file, rejected credentials): the document fails at once. */
export class PermanentFailure extends Error {}

export interface SourceText {
  extracted: ExtractedDocument;
  properties: { fileSize: number; mimeType: string; notes?: string[] };
}

/**
 * The document's source as Markdown, with what the chunker needs to stamp pages, sheets and slides.
 * Text formats are read by text-formats.ts directly; document formats (PDF, Office, e-mail, images)
 * load their module on first use, so a worker that only sees text never evaluates pdf.js or OCR.
 * `deadlineMs` bounds the extraction: a file that cannot be read in time fails with that reason
 * instead of the invocation timing out and the message coming back forever.
 */
export async function readSource(document: DocumentRecord, settings: IngestConfig, deadlineMs: number): Promise<SourceText> {
  const source = await documentSource(document);
  const maxBytes = config.maxUploadBytes();
  if (source.type === "TEXT") {
    const parsed = parseText(source.text);
    return { extracted: { text: parsed.text, notes: [] }, properties: { fileSize: Buffer.byteLength(source.text), mimeType: "text/plain" } };
  }
  let bytes: Uint8Array;
  let declaredType: string | undefined;
  let fileName: string;
  if (source.type === "MANAGED_FILE") {
    const head = await headObject(source.key);
    if (!head) throw new PermanentFailure("the uploaded file no longer exists");
    if (head.size > maxBytes) throw new PermanentFailure(`the file is larger than ${maxBytes} bytes`);
    const stored = await getObjectBytes(source.key);
    if (!stored) throw new PermanentFailure("the uploaded file no longer exists");
    bytes = stored;
    declaredType = head.contentType;
    fileName = document.name ?? source.key;
  } else {
    const fetched = await fetchPublicFile(source.fileUrl, maxBytes);
    bytes = fetched.bytes;
    declaredType = fetched.contentType;
    fileName = document.name ?? new URL(fetched.finalUrl).pathname;
  }
  const type = resolveFileType({ fileName, contentType: declaredType ?? "" });
  if (!type) throw new PermanentFailure(`unsupported file type ${declaredType ?? "(none)"} for ${fileName}`);
  const limits = extractionLimits({ deadlineMs });
  const extractor = isTextFormat(type.format) ? textExtractor(type.format) : await loadExtractor(type.format);
  const extracted = await extractor.extract(bytes, { ...parseOptions(settings), limits });
  const notes = extracted.notes.length > 0 ? { notes: extracted.notes } : {};
  return { extracted, properties: { fileSize: bytes.byteLength, mimeType: type.mimeType, ...notes } };
}

/** The ingest config's parse options, as the format modules read them (the spec's names). */
function parseOptions(settings: IngestConfig): Omit<ExtractionOptions, "limits"> {
  const { languageCode, forceOcr, mode, strategy, keepPageheaderInOutput, keepPagefooterInOutput, disableImageExtraction } = settings;
  return { languageCode, forceOcr, mode, strategy, keepPageheaderInOutput, keepPagefooterInOutput, disableImageExtraction };
}
