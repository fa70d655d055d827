/**
 * A minimal function-like entry point over the extraction registry, bundled by
 * bench/extraction-bundle.ts as a Lambda asset would be. Imported with no arguments it only loads
 * the registry (what its cold import measures); run as `node index.mjs <format> <file> [options
 * JSON]` it extracts the file and prints the result as JSON.
 */
import { DOCUMENT_FORMATS, type DocumentFormatId } from "../functions/shared/extraction/registry.ts";
import { loadExtractor } from "../functions/shared/extraction/index.ts";

export const formatIds = Object.keys(DOCUMENT_FORMATS);

const [, , format, file, optionsJson] = process.argv;
if (format && file) {
  const { readFileSync } = await import("node:fs");
  const { extractionLimits } = await import("../functions/shared/extraction/limits.ts");
  const { shutdownOcr } = await import("../functions/shared/extraction/ocr.ts");
  try {
    const extractor = await loadExtractor(format as DocumentFormatId);
    const result = await extractor.extract(new Uint8Array(readFileSync(file)), { limits: extractionLimits(), ...JSON.parse(optionsJson ?? "{}") });
    process.stdout.write(JSON.stringify(result));
  } finally {
    await shutdownOcr();
  }
}
