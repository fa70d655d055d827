import { Unzlib } from "fflate";
import { checkDeadline, MAX_IMAGE_PIXELS, MAX_PDF_STREAM_BYTES, tooLargeWhenDecompressed } from "./limits.ts";
import { megapixels } from "./image-size.ts";
import type { ExtractionLimits } from "./types.ts";

/**
 * What a PDF's streams would decode to, measured before pdf.js reads the file: every Flate stream
 * that is not an image is inflated in small pushes and counted, keeping nothing, and refused past
 * MAX_PDF_STREAM_BYTES (a 2.2 MB file can hold a content stream of 600 MB, which pdf.js would parse
 * whole); images are judged by the size their dictionary declares, which pdf.js itself bounds with
 * `maxImageSize`. Returns what the reader should know about images left out.
 */

const PUSH_BYTES = 16 * 1024;
const latin1 = new TextDecoder("latin1");

class StreamTooLarge extends Error {}

export function checkPdfStreams(bytes: Uint8Array, limits: ExtractionLimits, label: string): string[] {
  const notes: string[] = [];
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let position = 0;
  let streamIndex = 0;
  for (;;) {
    const keyword = buffer.indexOf("stream", position, "latin1");
    if (keyword < 0) break;
    position = keyword + 6;
    // `endstream` also contains the word; a stream starts with `stream` and an end of line.
    if (keyword >= 3 && latin1.decode(bytes.subarray(keyword - 3, keyword)) === "end") continue;
    let start = keyword + 6;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] !== 0x0a && bytes[start - 1] !== 0x0d) continue;
    if (bytes[start] === 0x0a) start++;
    const dictionary = latin1.decode(bytes.subarray(Math.max(0, keyword - 4096), keyword));
    const header = dictionary.slice(dictionary.lastIndexOf(" obj") + 1);
    if ((streamIndex++ & 63) === 0) checkDeadline(limits, label);
    const end = buffer.indexOf("endstream", start, "latin1");
    const data = bytes.subarray(start, end < 0 ? bytes.length : end);
    position = end < 0 ? bytes.length : end + 9;
    if (/\/Subtype\s*\/Image\b/.test(header)) {
      const width = Number(/\/Width\s+(\d+)/.exec(header)?.[1] ?? 0);
      const height = Number(/\/Height\s+(\d+)/.exec(header)?.[1] ?? 0);
      if (width * height > MAX_IMAGE_PIXELS) {
        notes.push(`an image of ${width}×${height} pixels was not read: it has more than the ${megapixels(MAX_IMAGE_PIXELS)} megapixels that can be read by OCR`);
      }
      continue;
    }
    if (!/\/(FlateDecode|Fl)\b/.test(header)) continue;
    if (inflatesPast(data, MAX_PDF_STREAM_BYTES)) throw tooLargeWhenDecompressed(label, "one of its streams", MAX_PDF_STREAM_BYTES);
  }
  return [...new Set(notes)];
}

/** True when the zlib data inflates to more than `limit` bytes; damaged data is left to pdf.js. */
function inflatesPast(data: Uint8Array, limit: number): boolean {
  let total = 0;
  const inflater = new Unzlib((chunk) => {
    total += chunk.length;
    if (total > limit) throw new StreamTooLarge();
  });
  try {
    for (let offset = 0; offset < data.length; offset += PUSH_BYTES) {
      const stop = Math.min(offset + PUSH_BYTES, data.length);
      inflater.push(data.subarray(offset, stop), stop === data.length);
    }
  } catch (error) {
    if (error instanceof StreamTooLarge) return true;
  }
  return false;
}
