import { parentPort } from "node:worker_threads";
import { loadExtractor } from "./index.ts";
import { DocumentExtractionError, MAX_EXTRACTED_CHARACTERS } from "./limits.ts";
import { DOCUMENT_FORMATS, type DocumentFormatId } from "../domain/catalogs/document-formats.ts";
import type { ExtractionOptions } from "./types.ts";

/**
 * The entry of an extraction thread (isolation.ts): reads one document per message with the
 * format's extractor and answers with the result or the error. Bundled as its own entry beside the
 * ingest worker's index.mjs (lib/bundling.ts).
 */

interface Request {
  id: number;
  format: DocumentFormatId;
  bytes: Uint8Array;
  options: ExtractionOptions;
}

parentPort!.on("message", (request: Request) => {
  void (async () => {
    try {
      const extractor = await loadExtractor(request.format);
      parentPort!.postMessage({ id: request.id, started: true });
      // The bytes were transferred to this thread: no one else reads them.
      const result = await extractor.extract(request.bytes, { ...request.options, ownsBytes: true });
      const maxCharacters = request.options.limits.maxCharacters ?? MAX_EXTRACTED_CHARACTERS;
      if (result.text.length > maxCharacters) {
        throw new DocumentExtractionError(
          `the ${DOCUMENT_FORMATS[request.format].label} file holds ${result.text.length} characters of text, more than the ${maxCharacters} one document may have`,
        );
      }
      parentPort!.postMessage({ id: request.id, result });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      parentPort!.postMessage({ id: request.id, error: { message, parse: error instanceof DocumentExtractionError } });
    }
  })();
});
