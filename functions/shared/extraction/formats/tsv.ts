import type { FormatExtractor } from "../types.ts";
import { textFormatExtractor } from "../text-decoding.ts";
import { delimitedToText } from "./csv.ts";

export function tsvToText(text: string): string {
  return delimitedToText(text, "\t", "TSV");
}

/** Tab-separated values: as CSV, with the tab as the only delimiter. */
const extractor = textFormatExtractor("tsv", tsvToText);

export function create(): FormatExtractor {
  return extractor;
}
