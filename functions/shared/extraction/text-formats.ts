import type { FileFormat } from "../domain/catalogs/file-types.ts";
import { csvToText } from "./formats/csv.ts";
import { htmlToText } from "./formats/html.ts";
import { jsonLinesToText, jsonToText } from "./formats/json.ts";
import { tsvToText } from "./formats/tsv.ts";
import { extractDecoded, normalizeNewlines, textFormatExtractor } from "./text-decoding.ts";
import type { FormatExtractor } from "./types.ts";

/**
 * Turns uploaded bytes into the text the chunker splits. Every converter keeps the source's own
 * structure visible in plain characters (Markdown headings, one JSON field per line, one CSV row per
 * paragraph) because the chunker splits at blank lines first, then at line breaks: whatever the
 * converter puts on one line or in one paragraph is what tends to stay together in one chunk. The
 * converters live in formats/<format>.ts beside the document formats; this module reads them
 * synchronously, so the ingest worker's start-up bundle holds the text formats.
 */

/** The formats read here, as text; the others are documents read by their own modules under formats/. */
export const TEXT_FORMATS = ["text", "markdown", "html", "json", "jsonl", "csv", "tsv"] as const satisfies readonly FileFormat[];
export type TextFormat = (typeof TEXT_FORMATS)[number];

export function isTextFormat(format: FileFormat): format is TextFormat {
  return (TEXT_FORMATS as readonly FileFormat[]).includes(format);
}

export interface ExtractedText {
  text: string;
  format: FileFormat;
}

const asWritten = (text: string) => text;
const CONVERTERS: Record<TextFormat, (text: string) => string> = {
  text: asWritten,
  markdown: asWritten,
  html: htmlToText,
  json: jsonToText,
  jsonl: jsonLinesToText,
  csv: csvToText,
  tsv: tsvToText,
};

/** Empty or whitespace-only files convert to empty text; deciding what that means is the caller's job. */
export function extractText(bytes: Uint8Array, format: TextFormat): ExtractedText {
  return { text: extractDecoded(bytes, format, CONVERTERS[format]), format };
}

/** The extractor of one text format. */
export function textExtractor(format: TextFormat): FormatExtractor {
  return textFormatExtractor(format, CONVERTERS[format]);
}

/** TEXT payloads arrive as a string: kept as written, read as Markdown (plain text is valid Markdown). */
export function parseText(text: string): ExtractedText {
  return { text: normalizeNewlines(text.startsWith("\uFEFF") ? text.slice(1) : text), format: "markdown" };
}
