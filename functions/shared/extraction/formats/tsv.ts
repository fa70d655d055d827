import { textFormatExtractor } from "../text-decoding.ts";
import { delimitedToText } from "./csv.ts";

export function tsvToText(text: string): string {
  return delimitedToText(text, "\t", "TSV");
}

/** Tab-separated values: as CSV, with the tab as the only delimiter. */
export const extractor = textFormatExtractor("tsv", tsvToText);
