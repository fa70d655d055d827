import { randomUUID } from "node:crypto";
import type { DocumentRecord, ExtractionCheckpoint } from "../../domain/document.ts";
import type { IngestConfig } from "../../domain/ingest-config.ts";
import { type FileType, largestUploadLimit, resolveFileType, uploadLimit } from "../../domain/catalogs/file-types.ts";
import { detectedMimeType } from "../../extraction/detect-type.ts";
import { extractIsolated } from "../../extraction/isolation.ts";
import { extractionLimits } from "../../extraction/limits.ts";
import { joinPageRanges } from "../../extraction/page-ranges.ts";
import { isTextFormat, parseText, textExtractor } from "../../extraction/text-formats.ts";
import type { ExtractedDocument, ExtractionOptions, FormatExtractor } from "../../extraction/types.ts";
import { fetchPublicFile } from "../../fetch/public-url.ts";
import { config } from "../../platform/env.ts";
import { getObjectText, headObject, putObject, readObject } from "../../storage/objects.ts";
import { stagingSourceCopyKey } from "../../storage/object-keys.ts";
import { documentSource } from "./stored-payloads.ts";

/** A failure that retrying cannot fix (bad file, rejected credentials): the document fails at once. */
export class PermanentFailure extends Error {}

export interface SourceProperties {
  fileSize: number;
  mimeType: string;
  notes?: string[];
}

/**
 * What one step read of the document's source: all of it (`complete`), or, for a long paged file,
 * the next page range (`partial`) with where the following step resumes.
 */
export type SourceRead =
  | { kind: "complete"; extracted: ExtractedDocument; properties: SourceProperties }
  | { kind: "partial"; part: ExtractedDocument; checkpoint: ExtractionCheckpoint };

export interface ReadBounds {
  /** Extraction fails past this (epoch ms): a single page or file that cannot be read in a step. */
  deadlineMs: number;
  /** A paged file starts no new page past this (epoch ms) and continues in the next step. */
  stopAtMs: number;
}

/**
 * The document's source as Markdown, with what the chunker needs to stamp pages, sheets and slides.
 * Text formats are read by text-formats.ts directly; document formats (PDF, Office, e-mail, images)
 * load their module on first use, so a worker that only sees text never evaluates pdf.js or OCR.
 * Paged formats are read at most INGEST_STEP_MAX_PAGES pages per step and stop early when the
 * step's time runs short, so a 2,000-page scan spreads over as many steps as it needs; every step
 * reads the same object (a fetched file is copied into the bucket once) and checks its ETag.
 */
export async function readSource(document: DocumentRecord, settings: IngestConfig, bounds: ReadBounds): Promise<SourceRead> {
  const resume = document.extraction?.runId === document.runId ? document.extraction : null;
  if (resume) return continueExtraction(document, settings, bounds, resume);

  const source = await documentSource(document);
  if (source.type === "TEXT") {
    const parsed = parseText(source.text);
    const properties = { fileSize: Buffer.byteLength(source.text), mimeType: "text/plain" };
    return { kind: "complete", extracted: { text: parsed.text, notes: [] }, properties };
  }
  let file: { bytes: Uint8Array; type: FileType; etag: string | null };
  if (source.type === "MANAGED_FILE") {
    const head = await headObject(source.key);
    if (!head) throw new PermanentFailure("the uploaded file no longer exists");
    const type = fileType(document.name ?? source.key, head.contentType);
    assertWithinLimit(head.size, type);
    const stored = await readObject(source.key);
    if (!stored) throw new PermanentFailure("the uploaded file no longer exists");
    file = { bytes: stored.bytes, type, etag: stored.etag };
  } else {
    const fetched = await fetchPublicFile(source.fileUrl, largestUploadLimit());
    const type = fileType(document.name ?? new URL(fetched.finalUrl).pathname, fetched.contentType);
    assertWithinLimit(fetched.bytes.byteLength, type);
    file = { bytes: fetched.bytes, type, etag: null };
  }

  // A fetched file's bytes are staged after a first page range; an upload's are never read again.
  const extractor = await extractorFor(file.type, source.type === "MANAGED_FILE");
  const properties = { fileSize: file.bytes.byteLength, mimeType: await detectedMimeType(file.bytes, file.type) };
  if (!file.type.paged) return complete(await extractor.extract(file.bytes, extractionOptions(settings, bounds)), properties);

  const extracted = await extractor.extract(file.bytes, { ...extractionOptions(settings, bounds), ...pageWindow(1, bounds) });
  if (!isPartial(extracted)) return complete(extracted, properties);
  // The next steps must read these very bytes: an upload is read again (its ETag checked), a
  // fetched file is kept in the run's staging folder, which goes when the run settles.
  let sourceKey = source.type === "MANAGED_FILE" ? source.key : null;
  let etag = file.etag;
  if (sourceKey === null || etag === null) {
    sourceKey = stagingSourceCopyKey(document.namespaceId, document.id, document.runId, randomUUID());
    etag = await putObject(sourceKey, file.bytes, file.type.mimeType);
  }
  return {
    kind: "partial",
    part: extracted,
    checkpoint: { runId: document.runId, sourceKey, etag, ...properties, totalPages: extracted.totalPages!, nextPage: extracted.lastPage! + 1, parts: [] },
  };
}

async function continueExtraction(document: DocumentRecord, settings: IngestConfig, bounds: ReadBounds, resume: ExtractionCheckpoint): Promise<SourceRead> {
  const stored = await readObject(resume.sourceKey);
  if (!stored) throw new PermanentFailure("the uploaded file no longer exists");
  if (stored.etag !== resume.etag) {
    throw new PermanentFailure(`the file changed while its pages were being read (after page ${resume.nextPage - 1}); ingest it again`);
  }
  const type = fileType(document.name ?? resume.sourceKey, resume.mimeType);
  const extractor = await extractorFor(type, true);
  const extracted = await extractor.extract(stored.bytes, { ...extractionOptions(settings, bounds), ...pageWindow(resume.nextPage, bounds) });
  if (isPartial(extracted)) return { kind: "partial", part: extracted, checkpoint: { ...resume, nextPage: extracted.lastPage! + 1 } };
  const parts: ExtractedDocument[] = [];
  for (const key of resume.parts) {
    const part = await getObjectText(key);
    if (part === null) throw new Error(`the extracted pages ${key} of document ${document.id} are missing`);
    parts.push(JSON.parse(part) as ExtractedDocument);
  }
  return complete(joinPageRanges([...parts, extracted]), { fileSize: resume.fileSize, mimeType: resume.mimeType });
}

function complete(extracted: ExtractedDocument, properties: SourceProperties): SourceRead {
  return { kind: "complete", extracted, properties: extracted.notes.length > 0 ? { ...properties, notes: extracted.notes } : properties };
}

function isPartial(extracted: ExtractedDocument): boolean {
  return extracted.lastPage !== undefined && extracted.totalPages !== undefined && extracted.lastPage < extracted.totalPages;
}

function fileType(fileName: string, contentType: string | undefined): FileType {
  const type = resolveFileType({ fileName, contentType: contentType ?? "" });
  if (!type) throw new PermanentFailure(`unsupported file type ${contentType ?? "(none)"} for ${fileName}`);
  return type;
}

function assertWithinLimit(size: number, type: FileType): void {
  const limit = uploadLimit(type);
  if (size > limit) throw new PermanentFailure(`the file is larger than ${limit} bytes`);
}

/**
 * Text formats are read here (their cost is linear in the upload, which is bounded); every other
 * format in an extraction thread with its own heap cap and time limit (extraction/isolation.ts).
 */
async function extractorFor(type: FileType, transfer: boolean): Promise<FormatExtractor> {
  if (isTextFormat(type.format)) return textExtractor(type.format);
  const format = type.format;
  return { extract: (bytes, options) => extractIsolated(format, bytes, options, { transfer }) };
}

function pageWindow(first: number, bounds: ReadBounds): Pick<ExtractionOptions, "pageRange" | "stopAtMs"> {
  return { pageRange: { first, last: first + config.ingestStepMaxPages() - 1 }, stopAtMs: bounds.stopAtMs };
}

/** The ingest config's parse options, as the format modules read them (the spec's names), with the step's deadline. */
function extractionOptions(settings: IngestConfig, bounds: ReadBounds): ExtractionOptions {
  const { languageCode, forceOcr, mode, strategy, keepPageheaderInOutput, keepPagefooterInOutput, disableImageExtraction } = settings;
  const limits = extractionLimits({ deadlineMs: bounds.deadlineMs });
  return { languageCode, forceOcr, mode, strategy, keepPageheaderInOutput, keepPagefooterInOutput, disableImageExtraction, limits };
}
