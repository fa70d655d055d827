import { expect } from "vitest";
import type { DocumentFormatId } from "../../functions/shared/domain/catalogs/document-formats.ts";
import { extractIsolated } from "../../functions/shared/extraction/isolation.ts";
import { DocumentExtractionError, extractionLimits } from "../../functions/shared/extraction/limits.ts";

/** Extracts `bytes` in an extraction thread, as the ingest worker does; two minutes unless told. */
export async function extract(format: DocumentFormatId, bytes: Uint8Array, deadlineMs = Date.now() + 120_000, graceMs?: number) {
  return extractIsolated(format, bytes, { limits: extractionLimits({ deadlineMs }) }, { graceMs });
}

/** The reason an extraction thread refused `bytes` with; fails the test if it did not. */
export async function refusal(format: DocumentFormatId, bytes: Uint8Array): Promise<string> {
  const error = await extract(format, bytes).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DocumentExtractionError);
  return (error as Error).message;
}
