import { DocumentParseError } from "./text-formats.ts";
import type { ExtractionLimits } from "./types.ts";

/**
 * The one error a format throws for a file that can never parse (encrypted, corrupt, truncated,
 * a zip bomb, too many pages, too slow): the worker fails the document with its message and does
 * not retry. Re-exported so format modules have a single place to take it from.
 */
export { DocumentParseError };

/**
 * Defaults sized for a 200 MB upload on a Lambda with a few GB of memory. Only the parts a format
 * reads count (text and XML, never images or fonts), and those inflate to a few times their
 * compressed size, so 512 MiB is generous for real documents and still far from what would crash
 * the function. Real decks and workbooks have a few hundred parts, not 20,000.
 */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 512 * 1024 * 1024;
export const DEFAULT_MAX_ENTRIES = 20_000;
export const DEFAULT_MAX_PAGES = 10_000;
/** What one extraction may take when the caller gives no deadline (a worker step is 15 minutes at most). */
export const DEFAULT_EXTRACTION_BUDGET_MS = 10 * 60 * 1000;

export function extractionLimits(overrides: Partial<ExtractionLimits> = {}): ExtractionLimits {
  return {
    maxDecompressedBytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
    maxEntries: DEFAULT_MAX_ENTRIES,
    maxPages: DEFAULT_MAX_PAGES,
    deadlineMs: Date.now() + DEFAULT_EXTRACTION_BUDGET_MS,
    ...overrides,
  };
}

/** Called between pages, slides, entries: long extractions stop at the deadline instead of at the Lambda timeout. */
export function checkDeadline(limits: ExtractionLimits, label: string): void {
  if (Date.now() > limits.deadlineMs) {
    throw new DocumentParseError(`the ${label} file took too long to parse (the time limit for one document was reached)`);
  }
}

export function checkPageCount(count: number, limits: ExtractionLimits, label: string, unit = "pages"): void {
  if (count > limits.maxPages) {
    throw new DocumentParseError(`the ${label} file has ${count} ${unit}, more than the ${limits.maxPages} allowed`);
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / (1024 * 1024))} MiB`;
  return `${Math.round(bytes / 1024)} KiB`;
}
