import type { FormatExtractor } from "../types.ts";
import { textFormatExtractor } from "../text-decoding.ts";

/** Read as written (plain text is valid Markdown). */
const extractor = textFormatExtractor("markdown", (text) => text);

export function create(): FormatExtractor {
  return extractor;
}
