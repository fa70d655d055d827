import { DOCUMENT_FORMATS, type DocumentFormatId } from "../domain/catalogs/document-formats.ts";
import type { FormatExtractor } from "./types.ts";

/**
 * The extractor of a format, loaded on first use. Apart from the registry, which the upload
 * endpoints read for names and types: only the functions that extract bundle the format modules.
 */
export async function loadExtractor(id: DocumentFormatId): Promise<FormatExtractor> {
  // One template, so the bundler includes every formats/*.ts in the functions that extract, and only there.
  const module = (await import(`./formats/${DOCUMENT_FORMATS[id].module}.ts`)) as { extractor: FormatExtractor };
  return module.extractor;
}
