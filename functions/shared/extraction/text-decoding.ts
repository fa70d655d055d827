import { DocumentExtractionError } from "./extraction-error.ts";
import { type FileFormat, fileTypeOf } from "../domain/catalogs/file-types.ts";
import type { FormatExtractor } from "./types.ts";

/**
 * Bytes to text for the text formats: the charset is sniffed (UTF-8, UTF-16 with or without a
 * byte-order mark, Windows-1252), binary files are refused by name, and line endings become LF.
 */

/** A text format's extractor: its bytes decoded, then converted by `convert` (formats/<format>.ts). */
export function textFormatExtractor(format: FileFormat, convert: (text: string) => string): FormatExtractor {
  return { extract: async (bytes) => ({ text: extractDecoded(bytes, format, convert), notes: [] }) };
}

/** Empty or whitespace-only files convert to empty text; deciding what that means is the caller's job. */
export function extractDecoded(bytes: Uint8Array, format: FileFormat, convert: (text: string) => string): string {
  return convertText(decodeText(bytes), format, convert);
}

/** Runs a converter over text already decoded (HTML a document library produced, as well as uploads). */
export function convertText(text: string, format: FileFormat, convert: (text: string) => string): string {
  try {
    return convert(text);
  } catch (error) {
    // The converters hold no recursion, so a RangeError can only be a string or array outgrowing
    // what V8 allows: the input is too big to convert, not a bug to report as a 500.
    if (error instanceof RangeError) {
      throw new DocumentExtractionError(`the ${fileTypeOf(format).label} file is too large to convert to text`);
    }
    throw error;
  }
}

export function normalizeNewlines(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

/** As much as git looks at to call a file binary. */
const SNIFF_BYTES = 8192;
const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Lenient = new TextDecoder("utf-8", { ignoreBOM: true });
const utf16le = new TextDecoder("utf-16le", { ignoreBOM: true });

const notText = (reason: string) => new DocumentExtractionError(`the file is not text: ${reason}`);

/** Formats people try to upload by mistake, named so the error tells them what they sent. */
const BINARY_SIGNATURES: readonly (readonly [readonly number[], string])[] = [
  [[0x25, 0x50, 0x44, 0x46, 0x2d], "it is a PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "it is a ZIP archive or an Office document (.docx, .xlsx, .pptx)"],
  [[0x50, 0x4b, 0x05, 0x06], "it is a ZIP archive"],
  [[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], "it is a legacy Office document (.doc, .xls, .ppt)"],
  [[0x89, 0x50, 0x4e, 0x47], "it is a PNG image"],
  [[0xff, 0xd8, 0xff], "it is a JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "it is a GIF image"],
  [[0x1f, 0x8b], "it is a gzip archive"],
];

function startsWithBytes(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, index) => bytes[index] === byte);
}

function decodeText(bytes: Uint8Array): string {
  if (startsWithBytes(bytes, [0xff, 0xfe, 0, 0]) || startsWithBytes(bytes, [0, 0, 0xfe, 0xff])) {
    throw notText("it is UTF-32, which is not supported; save it as UTF-8");
  }
  if (startsWithBytes(bytes, [0xff, 0xfe])) return normalizeNewlines(utf16le.decode(bytes.subarray(2)));
  if (startsWithBytes(bytes, [0xfe, 0xff])) return normalizeNewlines(decodeUtf16be(bytes.subarray(2)));

  const body = startsWithBytes(bytes, [0xef, 0xbb, 0xbf]) ? bytes.subarray(3) : bytes;
  for (const [signature, reason] of BINARY_SIGNATURES) {
    if (startsWithBytes(body, signature)) throw notText(reason);
  }
  const head = body.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) {
    throw notText(
      looksLikeUtf16WithoutBom(head)
        ? "it looks like UTF-16 without a byte-order mark; save it as UTF-8"
        : "it contains binary data (NUL bytes)",
    );
  }
  try {
    return normalizeNewlines(utf8Strict.decode(body));
  } catch {
    return normalizeNewlines(decodeImperfectText(body));
  }
}

function decodeUtf16be(bytes: Uint8Array): string {
  // Swapped by hand: Node builds without full ICU only ship the little-endian decoder.
  const swapped = new Uint8Array(bytes.length - (bytes.length % 2));
  for (let index = 0; index < swapped.length; index += 2) {
    swapped[index] = bytes[index + 1]!;
    swapped[index + 1] = bytes[index]!;
  }
  return utf16le.decode(swapped);
}

/** ASCII text in UTF-16 has a NUL in every other byte, always on the same side. */
function looksLikeUtf16WithoutBom(head: Uint8Array): boolean {
  let evenZeros = 0;
  let oddZeros = 0;
  for (let index = 0; index < head.length; index++) {
    if (head[index] === 0) {
      if (index % 2 === 0) evenZeros++;
      else oddZeros++;
    }
  }
  const pairs = head.length / 2;
  return Math.max(evenZeros, oddZeros) > pairs * 0.3 && Math.min(evenZeros, oddZeros) < pairs * 0.02;
}

/**
 * Text that is not valid UTF-8 is one of three things. With no valid multi-byte sequence at all and
 * the look of Western text it is a legacy single-byte file (Excel's "CSV" export on Windows writes
 * Windows-1252), decoded as such. With a few bad bytes among valid UTF-8 it is UTF-8 with damage,
 * decoded with replacement characters. Anything else is binary or an encoding we cannot guess, and
 * decoding it would index garbage.
 */
function decodeImperfectText(bytes: Uint8Array): string {
  const { invalid, multiByte } = scanUtf8(bytes);
  if (multiByte === 0 && looksLikeWindows1252(bytes)) return decodeWindows1252(bytes);
  if (invalid <= Math.max(8, bytes.length / 1000)) return utf8Lenient.decode(bytes);
  throw notText("it is not valid UTF-8 (it may be binary or in a legacy encoding); save it as UTF-8 text");
}

function scanUtf8(bytes: Uint8Array): { invalid: number; multiByte: number } {
  let invalid = 0;
  let multiByte = 0;
  let index = 0;
  const continuation = (offset: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[index + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  while (index < bytes.length) {
    const lead = bytes[index]!;
    let length = 0;
    if (lead < 0x80) length = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) length = continuation(1) ? 2 : 0;
    else if (lead >= 0xe0 && lead <= 0xef) {
      const low = lead === 0xe0 ? 0xa0 : 0x80;
      const high = lead === 0xed ? 0x9f : 0xbf;
      length = continuation(1, low, high) && continuation(2) ? 3 : 0;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      const low = lead === 0xf0 ? 0x90 : 0x80;
      const high = lead === 0xf4 ? 0x8f : 0xbf;
      length = continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
    }
    if (length === 0) {
      invalid++;
      index++;
    } else {
      if (length > 1) multiByte++;
      index += length;
    }
  }
  return { invalid, multiByte };
}

/** Bytes Windows-1252 leaves undefined; binary data has them, Western text never does. */
const WINDOWS_1252_UNDEFINED = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);
const WINDOWS_1252_C1 = [
  0x20ac, 0xfffd, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0xfffd,
  0x017d, 0xfffd, 0xfffd, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0xfffd, 0x017e, 0x0178,
];

/**
 * Western European text has its accented letters scattered among ASCII ones. Cyrillic, Greek or
 * CJK legacy encodings put non-ASCII bytes in long runs; read as Windows-1252 they would become
 * plausible-looking garbage, so they are refused instead.
 */
function looksLikeWindows1252(bytes: Uint8Array): boolean {
  let high = 0;
  let inLongRuns = 0;
  let run = 0;
  const endRun = () => {
    if (run >= 3) inLongRuns += run;
    run = 0;
  };
  for (const byte of bytes) {
    if (byte >= 0x80) {
      if (WINDOWS_1252_UNDEFINED.has(byte)) return false;
      high++;
      run++;
      continue;
    }
    endRun();
    const isControl = (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) || byte === 0x7f;
    if (isControl) return false;
  }
  endRun();
  return high > 0 && high <= bytes.length * 0.3 && inLongRuns <= high * 0.2;
}

function decodeWindows1252(bytes: Uint8Array): string {
  const pieces: string[] = [];
  const codes = new Uint16Array(Math.min(bytes.length, 8192));
  for (let start = 0; start < bytes.length; start += codes.length) {
    const end = Math.min(start + codes.length, bytes.length);
    for (let index = start; index < end; index++) {
      const byte = bytes[index]!;
      codes[index - start] = byte >= 0x80 && byte < 0xa0 ? WINDOWS_1252_C1[byte - 0x80]! : byte;
    }
    pieces.push(String.fromCharCode(...codes.subarray(0, end - start)));
  }
  return pieces.join("");
}

