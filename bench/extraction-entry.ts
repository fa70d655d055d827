/**
 * A minimal function-like entry point over the extraction registry, bundled by
 * bench/extraction-bundle.ts as a Lambda asset would be. Imported with no arguments it only loads
 * the registry (what its cold import measures); run as `node index.mjs <format> <file> [options
 * JSON]` it extracts the file in an extraction thread, as the ingest worker does, and prints the
 * result as JSON (or the refusal on stderr, with exit code 2).
 */
import { DOCUMENT_FORMATS, type DocumentFormatId } from "../functions/shared/domain/catalogs/document-formats.ts";

export const formatIds = Object.keys(DOCUMENT_FORMATS);

const [, , format, file, optionsJson] = process.argv;
if (format && file) {
  const { readFileSync } = await import("node:fs");
  const { extractionLimits } = await import("../functions/shared/extraction/limits.ts");
  const { extractIsolated, shutdownExtractionThreads } = await import("../functions/shared/extraction/isolation.ts");
  const { DocumentExtractionError } = await import("../functions/shared/extraction/limits.ts");
  try {
    const result = await extractIsolated(format as DocumentFormatId, new Uint8Array(readFileSync(file)), { limits: extractionLimits(), ...JSON.parse(optionsJson ?? "{}") });
    process.stdout.write(JSON.stringify(result));
  } catch (error) {
    if (!(error instanceof DocumentExtractionError)) throw error;
    process.stderr.write(error.message);
    process.exitCode = 2;
  } finally {
    await shutdownExtractionThreads();
  }
}
