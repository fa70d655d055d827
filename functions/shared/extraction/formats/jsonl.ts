import type { FormatExtractor } from "../types.ts";
import { textFormatExtractor } from "../text-decoding.ts";
import { jsonLinesToText } from "./json.ts";

/** JSON Lines: each record re-indented as JSON, one paragraph per record. */
const extractor = textFormatExtractor("jsonl", jsonLinesToText);

export function create(): FormatExtractor {
  return extractor;
}
