import type { FormatExtractor } from "../types.ts";
import { textFormatExtractor } from "../text-decoding.ts";

/** Read as written (plain text is valid Markdown). */
const extractor = textFormatExtractor("text", (text) => text);

export function create(): FormatExtractor {
  return extractor;
}
