import type { DocumentRecord } from "../../domain/document.ts";
import { WeightedSemaphore } from "../../platform/concurrency.ts";
import { config, MAX_UPLOAD_BYTES_DEFAULT } from "../../platform/env.ts";
import { headObject } from "../../storage/objects.ts";

/**
 * The memory one worker process lets the documents it works on at once hold between them. An SQS
 * batch's records run concurrently in one invocation, so without it five large files would be
 * parsed side by side in one function's memory; with it, documents that would not fit together
 * wait their turn while small ones still run in parallel.
 */
let semaphore: WeightedSemaphore | undefined;

export function memoryBudget(): WeightedSemaphore {
  const capacity = config.ingestMemoryBudgetMb() * 1024 * 1024;
  if (semaphore?.capacity !== capacity) semaphore = new WeightedSemaphore(capacity);
  return semaphore;
}

/**
 * Peak memory per byte of source while a document is parsed, chunked and staged: measured up to
 * 24.4 for text whose characters V8 keeps in two bytes each (bench/large-file.ts, 200 MB inputs),
 * about 15 for ASCII text and the structured formats.
 */
export const PREPARATION_MEMORY_PER_BYTE = 25;

/** What working on this document may hold at its peak, by what is known of its source before reading it. */
export async function memoryNeed(document: DocumentRecord): Promise<number> {
  // Judged by the source in every phase: a step that resumes embedding holds less than one that
  // parses, but measured batches of large documents outgrew the heap when resumes were reserved
  // for less (a resume's parsed chunks file, texts and vectors are several times the file).
  const source = document.source;
  if (source.type === "TEXT") {
    if ("text" in source) return Buffer.byteLength(source.text) * PREPARATION_MEMORY_PER_BYTE;
    const stored = document.sourceObjectKey ? await headObject(document.sourceObjectKey) : null;
    return (stored?.size ?? 0) * PREPARATION_MEMORY_PER_BYTE;
  }
  if (source.type === "MANAGED_FILE") return ((await headObject(source.key))?.size ?? 0) * PREPARATION_MEMORY_PER_BYTE;
  // A public URL's size is known only once fetched. Reserved as for the largest text file: a PDF
  // may be larger (its own limit) but needs far less memory per byte (bench/large-file.ts).
  return (config.maxUploadBytesOverride() ?? MAX_UPLOAD_BYTES_DEFAULT) * PREPARATION_MEMORY_PER_BYTE;
}
