import { checkDeadline, DocumentExtractionError } from "../limits.ts";
import { checkImagePixels } from "../image-size.ts";
import { ocrLanguage, OcrUnavailableError, recognize, tidyOcrText } from "../ocr.ts";
import type { ExtractedDocument, ExtractionOptions, FormatExtractor } from "../types.ts";

/**
 * Images (PNG, JPEG, TIFF, WebP) through OCR. Tesseract's image library (Leptonica, inside the
 * tesseract.js WebAssembly core) decodes all four itself, so the bytes go to it unchanged. A TIFF
 * is read at its first page.
 */

const SIGNATURES: readonly (readonly [string, (bytes: Uint8Array) => boolean])[] = [
  ["PNG", (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47],
  ["JPEG", (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ["TIFF", (b) => (b[0] === 0x49 && b[1] === 0x49 && b[2] === 0x2a && b[3] === 0) || (b[0] === 0x4d && b[1] === 0x4d && b[2] === 0 && b[3] === 0x2a)],
  ["WebP", (b) => ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP"],
];

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

export function imageKind(bytes: Uint8Array): string | undefined {
  return SIGNATURES.find(([, test]) => test(bytes))?.[0];
}

async function extract(bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedDocument> {
  const kind = imageKind(bytes);
  if (!kind) throw new DocumentExtractionError("the file is not a PNG, JPEG, TIFF or WebP image");
  if (options.strategy === "fast") {
    return { text: "", totalPages: 1, notes: ["the image was not read: OCR is off with strategy fast"] };
  }
  checkImagePixels(bytes, kind);
  checkDeadline(options.limits, "image");
  let language;
  try {
    language = ocrLanguage(options.languageCode);
  } catch (error) {
    if (error instanceof OcrUnavailableError) throw new DocumentExtractionError(`OCR could not run on the image: ${error.message}`);
    throw error;
  }
  const notes = language.note ? [language.note] : [];
  let text: string;
  try {
    text = tidyOcrText(await recognize(bytes, language, options.limits));
  } catch (error) {
    if (error instanceof DocumentExtractionError) throw error;
    throw new DocumentExtractionError(`OCR could not run on the ${kind} image: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (text === "") notes.push("OCR found no text in the image");
  return { text, totalPages: 1, notes };
}

const extractor: FormatExtractor = { extract };

export function create(): FormatExtractor {
  return extractor;
}
