import { textExtractor } from "../text-formats.ts";

export const extractor = textExtractor("tsv");
