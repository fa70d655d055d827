import { DocumentExtractionError } from "./extraction-error.ts";
import type { ExtractionLimits } from "./types.ts";

/**
 * The one error a format throws for a file that can never parse (encrypted, corrupt, truncated,
 * a zip bomb, too many pages, too slow): the worker fails the document with its message and does
 * not retry. Re-exported so format modules have a single place to take it from.
 */
export { DocumentExtractionError };

/**
 * Bounds for any container, which each format narrows to its own budget (CONTAINER_BUDGETS below).
 * Only the parts a format reads count (text and XML, never images or fonts). Real decks and
 * workbooks have a few hundred parts, not 20,000.
 */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 512 * 1024 * 1024;
export const DEFAULT_MAX_ENTRIES = 20_000;
export const DEFAULT_MAX_PAGES = 10_000;
/**
 * Budgets on what a container's parts may inflate to, per format: one part and all the parts read
 * together. They bound the parser's real cost, not the upload's: each is sized so the parser's own
 * expansion of that much XML fits the extraction thread's heap (768 MB, isolation.ts), measured with
 * test/fixtures/bombs.ts (peak RSS per MB of XML: mammoth about 90, SheetJS about 18, pdf.js about
 * 9 per MB of content stream; our own XML reader about 17, one part at a time). A Word
 * document.xml of 6 MiB is a book of about a thousand pages; a sheet part of 32 MiB several
 * hundred thousand rows.
 */
export const CONTAINER_BUDGETS = {
  docx: { maxPartBytes: 6 * 1024 * 1024, maxTotalBytes: 8 * 1024 * 1024 },
  spreadsheet: { maxPartBytes: 32 * 1024 * 1024, maxTotalBytes: 36 * 1024 * 1024 },
  pptx: { maxPartBytes: 16 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 },
  odt: { maxPartBytes: 16 * 1024 * 1024, maxTotalBytes: 32 * 1024 * 1024 },
  epub: { maxPartBytes: 16 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 },
} as const satisfies Record<string, { maxPartBytes: number; maxTotalBytes: number }>;

/** The limits a container format reads its parts with: the caller's, narrowed to the format's budget. */
export function containerLimits(limits: ExtractionLimits, format: keyof typeof CONTAINER_BUDGETS): ExtractionLimits {
  const budget = CONTAINER_BUDGETS[format];
  return {
    ...limits,
    maxDecompressedBytes: Math.min(limits.maxDecompressedBytes, budget.maxTotalBytes),
    maxPartBytes: Math.min(limits.maxPartBytes ?? Number.POSITIVE_INFINITY, budget.maxPartBytes),
  };
}

/**
 * Characters the text extracted from one document (or one page range of a PDF) may have: what the
 * worker is measured to chunk and embed for a text upload (40 MiB, bench/large-file.ts), since the
 * extracted text is chunked in the worker's own thread. Checked in the extraction thread, before
 * the text is handed over.
 */
export const MAX_EXTRACTED_CHARACTERS = 40 * 1024 * 1024;

/**
 * Pixels an image may have to be decoded for OCR, checked from its header before any decode (PNG,
 * JPEG, TIFF, WebP, and images inside PDFs, where pdf.js's `maxImageSize` skips larger ones). 32
 * megapixels is an A4 page scanned at 550 dpi; a 30,000×30,000 image would need gigabytes in the
 * OCR engine.
 */
export const MAX_IMAGE_PIXELS = 32_000_000;

/**
 * Bytes one PDF stream (content, object or cross-reference stream) may decode to, checked by
 * inflating it (and keeping nothing) before pdf.js reads the file. pdf.js holds about 9 bytes per
 * byte of a content stream's operators; a real page's stream is a few hundred kilobytes.
 */
export const MAX_PDF_STREAM_BYTES = 32 * 1024 * 1024;

/**
 * The extraction threads (isolation.ts): how many run at once and how long past the document's
 * deadline a thread that does not answer is given before it is terminated. One at a time: the
 * ingest worker's 1,769 MB is one vCPU, so parsing is not faster side by side, and one thread's
 * heap cap (config.extractionHeapMb, 768 MB) leaves the rest of the function's memory to the
 * process and the other documents of the batch.
 */
export const EXTRACTION_THREADS = 1;
export const EXTRACTION_DEADLINE_GRACE_MS = 5_000;

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
  if (Date.now() > limits.deadlineMs) throw tooSlow(label);
}

/** A document still being read at its deadline: checked between parts here, and by the extraction thread's timer. */
export function tooSlow(label: string): DocumentExtractionError {
  return new DocumentExtractionError(`the ${label} file took too long to parse (the time limit for one document was reached)`);
}

export function checkPageCount(count: number, limits: ExtractionLimits, label: string, unit = "pages"): void {
  if (count > limits.maxPages) {
    throw new DocumentExtractionError(`the ${label} file has ${count} ${unit}, more than the ${limits.maxPages} allowed`);
  }
}

/** The refusal of a container or stream that inflates past a budget. */
export function tooLargeWhenDecompressed(label: string, what: string, limit: number): DocumentExtractionError {
  return new DocumentExtractionError(
    `the ${label} file is too large when decompressed: ${what} inflates to more than ${formatBytes(limit)} (a decompression bomb or an unusually large document), so it was not parsed`,
  );
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / (1024 * 1024))} MiB`;
  return `${Math.round(bytes / 1024)} KiB`;
}
