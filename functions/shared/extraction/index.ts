import type { DocumentFormatId } from "../domain/catalogs/document-formats.ts";
import { FORMAT_MODULES } from "./registry.ts";
import type { FormatExtractor } from "./types.ts";

/**
 * The extractor of a format, loaded on first use: only the functions that extract bundle the
 * format modules; the upload endpoints read the catalog (domain/catalogs/) for names and types.
 */
export async function loadExtractor(id: DocumentFormatId): Promise<FormatExtractor> {
  return (await FORMAT_MODULES[id]()).create();
}
