import { textFormatExtractor } from "../text-decoding.ts";

/** Read as written (plain text is valid Markdown). */
export const extractor = textFormatExtractor("markdown", (text) => text);
