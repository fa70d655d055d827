import { textFormatExtractor } from "../text-decoding.ts";
import { jsonLinesToText } from "./json.ts";

/** JSON Lines: each record re-indented as JSON, one paragraph per record. */
export const extractor = textFormatExtractor("jsonl", jsonLinesToText);
