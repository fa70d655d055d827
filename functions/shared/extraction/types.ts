/**
 * The one interface every document format implements: bytes in, Markdown out, plus what the
 * chunker needs to stamp `page_number`, `sheet` and `slide` on chunks. A format module exports
 * `create()` returning this shape; `registry.ts` loads it lazily by format id.
 */

/** The ingest config's parse options (spec names), plus the bounds the worker sets per step. */
export interface ExtractionOptions {
  /** Spec language code (`en`, `fr`, ...): the OCR language when its model ships in a package. */
  languageCode?: string;
  /** OCR every page, even pages with a text layer. */
  forceOcr?: boolean;
  /** `accurate` also OCRs images on pages that have a text layer; `fast`/`balanced` do not. */
  mode?: "fast" | "balanced" | "accurate";
  /** `fast`: text layer only, never OCR; `auto` (default): OCR pages without a text layer; `hi_res`: as `mode: accurate`; `ocr_only`: as `forceOcr`. */
  strategy?: "auto" | "fast" | "hi_res" | "ocr_only";
  keepPageheaderInOutput?: boolean;
  keepPagefooterInOutput?: boolean;
  /** Skips OCR of images embedded in pages that also have text (mode `accurate`/`hi_res`). */
  disableImageExtraction?: boolean;
  limits: ExtractionLimits;
  /**
   * Paged formats (PDF, multi-page TIFF) extract only these pages, 1-based and inclusive, so a
   * long document can be processed a range per worker step. Clamped to the document.
   */
  pageRange?: { first: number; last: number };
  /**
   * Paged formats: epoch milliseconds after which no new page is started (once at least one page
   * is read); the pages read so far come back and `lastPage` says where to resume. Unlike
   * `limits.deadlineMs` it is not a failure: it is how one document spreads over worker steps.
   */
  stopAtMs?: number;
  /**
   * The bytes belong to this extraction alone (an extraction thread's copy): the format may hand
   * them to its library instead of copying them (pdf.js takes ownership of its buffer).
   */
  ownsBytes?: boolean;
}

export interface ExtractionLimits {
  /** Bytes a container (zip) may inflate to, all entries together. */
  maxDecompressedBytes: number;
  /** Bytes one part of a container may inflate to (its format's budget, limits.ts); unbounded when absent. */
  maxPartBytes?: number;
  /** Characters of extracted text (MAX_EXTRACTED_CHARACTERS when absent; checked by the extraction thread). */
  maxCharacters?: number;
  /** Entries a container may list. */
  maxEntries: number;
  /** Pages (or slides, sheets, spine items) a document may have. */
  maxPages: number;
  /** Epoch milliseconds after which extraction stops with a DocumentExtractionError. */
  deadlineMs: number;
}

export interface ExtractedSection {
  /** Character offset in `text` where the section starts. */
  offset: number;
  metadata: { sheet?: string; slide?: number };
}

export interface ExtractedDocument {
  /** Markdown: headings, lists and tables as Markdown so by_title chunking and keyword search see them. */
  text: string;
  /**
   * Paged formats: character offset in `text` where each extracted page starts. Entry i is page
   * `firstPage + i`.
   */
  pageOffsets?: number[];
  /** Page number of `pageOffsets[0]`: 1, or `pageRange.first`. */
  firstPage?: number;
  /** Sheets of a workbook, slides of a deck. */
  sections?: ExtractedSection[];
  /** Paged formats: the last page extracted (the end of the range, or earlier at `stopAtMs`). */
  lastPage?: number;
  /** Pages in the whole document (not only the extracted range). */
  totalPages?: number;
  /** What the reader should know about this extraction ("OCR could not run on page 3: ..."). */
  notes: string[];
}

export interface FormatExtractor {
  extract(bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedDocument>;
}
