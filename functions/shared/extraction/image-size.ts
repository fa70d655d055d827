import { DocumentExtractionError, MAX_IMAGE_PIXELS } from "./limits.ts";

/**
 * An image's width and height read from its header, without decoding a pixel, so an image too
 * large to OCR is refused before the OCR engine allocates for it (a 1.5 MB PNG can declare
 * 30,000×30,000 pixels). TIFF: the first page, the one read. Undefined when the header has no size.
 */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const has = (end: number) => end <= bytes.length;
  // PNG: the IHDR chunk comes first.
  if (has(24) && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (has(3) && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegDimensions(bytes, view);
  if (has(8) && ((bytes[0] === 0x49 && bytes[1] === 0x49) || (bytes[0] === 0x4d && bytes[1] === 0x4d))) return tiffDimensions(bytes, view, bytes[0] === 0x49);
  if (has(30) && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return webpDimensions(bytes, view);
  return undefined;
}

/** Refuses an image whose header gives no size or more pixels than MAX_IMAGE_PIXELS. */
export function checkImagePixels(bytes: Uint8Array, kind: string): void {
  const size = imageDimensions(bytes);
  if (!size) throw new DocumentExtractionError(`the ${kind} image is corrupt: its size cannot be read from its header`);
  refuseOversizedImage(size.width, size.height, `the ${kind} image`);
}

function refuseOversizedImage(width: number, height: number, what: string): void {
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new DocumentExtractionError(
      `${what} is ${width}×${height} pixels (${megapixels(width * height)} megapixels), more than the ${megapixels(MAX_IMAGE_PIXELS)} megapixels that can be read by OCR`,
    );
  }
}

export function megapixels(pixels: number): string {
  return String(Math.round(pixels / 1_000_000));
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/** The first start-of-frame marker (baseline, progressive, lossless, arithmetic) holds the size. */
function jpegDimensions(bytes: Uint8Array, view: DataView): { width: number; height: number } | undefined {
  let offset = 2;
  while (offset + 9 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1]!;
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    // Markers without a length: RSTn, SOI, TEM.
    if ((marker >= 0xd0 && marker <= 0xd8) || marker === 0x01) {
      offset += 2;
      continue;
    }
    const length = view.getUint16(offset + 2);
    const startOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (startOfFrame) return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
    if (marker === 0xd9 || marker === 0xda) return undefined;
    offset += 2 + length;
  }
  return undefined;
}

function tiffDimensions(bytes: Uint8Array, view: DataView, little: boolean): { width: number; height: number } | undefined {
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > bytes.length) return undefined;
  const count = view.getUint16(ifd, little);
  let width: number | undefined;
  let height: number | undefined;
  for (let index = 0; index < count; index++) {
    const entry = ifd + 2 + index * 12;
    if (entry + 12 > bytes.length) return undefined;
    const tag = view.getUint16(entry, little);
    if (tag !== 256 && tag !== 257) continue;
    const type = view.getUint16(entry + 2, little);
    // SHORT (3) or LONG (4), held in the entry itself.
    const value = type === 3 ? view.getUint16(entry + 8, little) : view.getUint32(entry + 8, little);
    if (tag === 256) width = value;
    else height = value;
  }
  return width !== undefined && height !== undefined ? { width, height } : undefined;
}

function webpDimensions(bytes: Uint8Array, view: DataView): { width: number; height: number } | undefined {
  const chunk = ascii(bytes, 12, 16);
  const data = 20;
  if (chunk === "VP8X") {
    const width = 1 + (bytes[data + 4]! | (bytes[data + 5]! << 8) | (bytes[data + 6]! << 16));
    const height = 1 + (bytes[data + 7]! | (bytes[data + 8]! << 8) | (bytes[data + 9]! << 16));
    return { width, height };
  }
  if (chunk === "VP8L") {
    // A signature byte, then 14 bits of width - 1 and 14 bits of height - 1.
    const bits = view.getUint32(data + 1, true);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === "VP8 ") {
    // A 3-byte frame tag and a 3-byte start code, then 14-bit width and height (2 scale bits each).
    return { width: view.getUint16(data + 6, true) & 0x3fff, height: view.getUint16(data + 8, true) & 0x3fff };
  }
  return undefined;
}
