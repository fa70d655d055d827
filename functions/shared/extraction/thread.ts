import { parentPort } from "node:worker_threads";
import { loadExtractor } from "./index.ts";
import { DocumentParseError } from "./limits.ts";
import type { DocumentFormatId } from "./registry.ts";
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
      const result = await extractor.extract(request.bytes, request.options);
      parentPort!.postMessage({ id: request.id, result });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      parentPort!.postMessage({ id: request.id, error: { message, parse: error instanceof DocumentParseError } });
    }
  })();
});
