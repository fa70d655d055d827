import { Inflate, zipSync, type Zippable } from "fflate";
import { checkDeadline, DocumentExtractionError, tooLargeWhenDecompressed } from "./limits.ts";
import type { ExtractionLimits } from "./types.ts";
import { refuseEntityDeclarations } from "./xml.ts";

/**
 * Reads the parts of a ZIP container (DOCX, PPTX, XLSX, ODT, EPUB) from strangers without trusting
 * a single number in it. The central directory gives the list of entries; every entry we keep is
 * inflated in small pushes and counted as it grows, so an entry that claims 1 KB and inflates to
 * 10 GB stops at the bound with a DocumentExtractionError instead of exhausting memory. Entries the
 * caller does not want (images, fonts, embedded media) are never inflated at all.
 */

export interface ZipEntry {
  name: string;
  compressedSize: number;
  /** As declared; only used to refuse early, never trusted to bound the output. */
  declaredSize: number;
  method: number;
  encrypted: boolean;
  localHeaderOffset: number;
}

export interface ZipArchive {
  entries: ZipEntry[];
  /** Inflated parts, by name, as selected by `want`. */
  files: Map<string, Uint8Array>;
}

export interface UnzipOptions {
  /** How the format is named in error messages ("Word", "EPUB"). */
  label: string;
  limits: ExtractionLimits;
  /** Which entries to inflate; the default inflates everything. */
  want?: (name: string) => boolean;
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_EOCD_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** Small pushes bound what one push can produce: deflate expands at most ~1,032×, so 16 KB in is at most ~17 MB out. */
const INFLATE_PUSH_BYTES = 16 * 1024;

const utf8 = new TextDecoder("utf-8");

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 0x03 || bytes[2] === 0x05) && (bytes[3] === 0x04 || bytes[3] === 0x06);
}

export function unzip(bytes: Uint8Array, options: UnzipOptions): ZipArchive {
  const { label, limits } = options;
  const corrupt = (why: string) => new DocumentExtractionError(`the ${label} file is corrupt or truncated: ${why}`);
  const entries = readCentralDirectory(bytes, label, limits, corrupt);
  const wanted = options.want ? entries.filter((entry) => options.want!(entry.name)) : entries;

  const maxPart = limits.maxPartBytes ?? Number.POSITIVE_INFINITY;
  let declaredTotal = 0;
  for (const entry of wanted) {
    declaredTotal += entry.declaredSize;
    if (entry.declaredSize > maxPart) throw tooLargeWhenDecompressed(label, `its part ${entry.name}`, maxPart);
  }
  if (declaredTotal > limits.maxDecompressedBytes) throw tooLarge(label, limits);

  const files = new Map<string, Uint8Array>();
  let inflatedTotal = 0;
  for (const entry of wanted) {
    checkDeadline(limits, label);
    if (entry.encrypted) throw new DocumentExtractionError(`the ${label} file is password-protected (its part ${entry.name} is encrypted)`);
    const data = entryData(bytes, entry, corrupt);
    let content: Uint8Array;
    if (entry.method === 0) {
      content = data;
      if (content.length > maxPart) throw tooLargeWhenDecompressed(label, `its part ${entry.name}`, maxPart);
    } else if (entry.method === 8) {
      // Whichever budget is nearer stops the inflation, and the message names that one.
      const remaining = limits.maxDecompressedBytes - inflatedTotal;
      const onExceeded = maxPart < remaining ? () => tooLargeWhenDecompressed(label, `its part ${entry.name}`, maxPart) : () => tooLarge(label, limits);
      content = inflateBounded(data, Math.min(maxPart, remaining), onExceeded, corrupt, entry.name);
    } else {
      throw new DocumentExtractionError(`the ${label} file uses a compression method (${entry.method}) that is not supported`);
    }
    inflatedTotal += content.length;
    if (inflatedTotal > limits.maxDecompressedBytes) throw tooLarge(label, limits);
    files.set(entry.name, content);
  }
  return { entries, files };
}

/**
 * A new archive holding exactly the given parts, stored without compression. Libraries that open
 * the container themselves (mammoth, SheetJS) get this instead of the upload: what they inflate
 * is then what we bounded and checked, whatever tricks the original's headers played.
 */
export function rezipStored(files: Map<string, Uint8Array>): Uint8Array {
  const zippable: Zippable = {};
  for (const [name, content] of files) zippable[name] = [content, { level: 0 }];
  return zipSync(zippable);
}

export function textOf(archive: ZipArchive, name: string): string | undefined {
  const content = archive.files.get(name);
  return content === undefined ? undefined : utf8.decode(content);
}

function tooLarge(label: string, limits: ExtractionLimits): DocumentExtractionError {
  return tooLargeWhenDecompressed(label, "the text it holds", limits.maxDecompressedBytes);
}

function readCentralDirectory(
  bytes: Uint8Array,
  label: string,
  limits: ExtractionLimits,
  corrupt: (why: string) => DocumentExtractionError,
): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  if (eocd < 0) throw corrupt("its ZIP directory is missing");
  let count = view.getUint16(eocd + 10, true);
  let directorySize = view.getUint32(eocd + 12, true);
  let directoryOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || directoryOffset === 0xffffffff || directorySize === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || view.getUint32(locator, true) !== ZIP64_EOCD_LOCATOR_SIGNATURE) throw corrupt("its ZIP64 directory is missing");
    const zip64 = Number(view.getBigUint64(locator + 8, true));
    if (zip64 + 56 > bytes.length || view.getUint32(zip64, true) !== ZIP64_EOCD_SIGNATURE) throw corrupt("its ZIP64 directory is damaged");
    count = Number(view.getBigUint64(zip64 + 32, true));
    directorySize = Number(view.getBigUint64(zip64 + 40, true));
    directoryOffset = Number(view.getBigUint64(zip64 + 48, true));
  }
  if (count > limits.maxEntries) {
    throw new DocumentExtractionError(`the ${label} file lists ${count} parts, more than the ${limits.maxEntries} allowed`);
  }
  if (directoryOffset + directorySize > bytes.length) throw corrupt("its ZIP directory points past the end of the file");

  const entries: ZipEntry[] = [];
  let offset = directoryOffset;
  for (let index = 0; index < count; index++) {
    if (offset + 46 > bytes.length || view.getUint32(offset, true) !== CENTRAL_SIGNATURE) throw corrupt("its ZIP directory is damaged");
    const flags = view.getUint16(offset + 8, true);
    const method = view.getUint16(offset + 10, true);
    let compressedSize = view.getUint32(offset + 20, true);
    let declaredSize = view.getUint32(offset + 24, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    let localHeaderOffset = view.getUint32(offset + 42, true);
    const nameStart = offset + 46;
    if (nameStart + nameLength + extraLength > bytes.length) throw corrupt("its ZIP directory is damaged");
    const name = utf8.decode(bytes.subarray(nameStart, nameStart + nameLength));
    // ZIP64 keeps the real values in an extra field, in this order, for each one saturated above.
    let extra = nameStart + nameLength;
    const extraEnd = extra + extraLength;
    while (extra + 4 <= extraEnd) {
      const id = view.getUint16(extra, true);
      const size = view.getUint16(extra + 2, true);
      if (id === 0x0001) {
        let field = extra + 4;
        const next = () => {
          const value = field + 8 <= extra + 4 + size ? Number(view.getBigUint64(field, true)) : undefined;
          field += 8;
          return value;
        };
        if (declaredSize === 0xffffffff) declaredSize = next() ?? declaredSize;
        if (compressedSize === 0xffffffff) compressedSize = next() ?? compressedSize;
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = next() ?? localHeaderOffset;
      }
      extra += 4 + size;
    }
    entries.push({ name, compressedSize, declaredSize, method, encrypted: (flags & 1) === 1, localHeaderOffset });
    offset = extraEnd + commentLength;
  }
  return entries;
}

function findEndOfCentralDirectory(view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65,535.
  const lowest = Math.max(0, view.byteLength - 22 - 65535);
  for (let offset = view.byteLength - 22; offset >= lowest; offset--) {
    if (view.getUint32(offset, true) === EOCD_SIGNATURE) return offset;
  }
  return -1;
}

function entryData(bytes: Uint8Array, entry: ZipEntry, corrupt: (why: string) => DocumentExtractionError): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = entry.localHeaderOffset;
  if (header + 30 > bytes.length || view.getUint32(header, true) !== LOCAL_SIGNATURE) {
    throw corrupt(`the part ${entry.name} is missing`);
  }
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length) throw corrupt(`the part ${entry.name} is cut off`);
  return bytes.subarray(start, end);
}

function inflateBounded(
  data: Uint8Array,
  budget: number,
  exceeded: () => DocumentExtractionError,
  corrupt: (why: string) => DocumentExtractionError,
  name: string,
): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let finished = false;
  const inflater = new Inflate((chunk, final) => {
    total += chunk.length;
    if (total > budget) throw exceeded();
    chunks.push(chunk);
    if (final) finished = true;
  });
  try {
    for (let offset = 0; offset < data.length; offset += INFLATE_PUSH_BYTES) {
      const end = Math.min(offset + INFLATE_PUSH_BYTES, data.length);
      inflater.push(data.subarray(offset, end), end === data.length);
    }
    if (data.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (error) {
    if (error instanceof DocumentExtractionError) throw error;
    throw corrupt(`the part ${name} does not inflate (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!finished) throw corrupt(`the part ${name} ends early`);
  if (chunks.length === 1) return chunks[0]!;
  const content = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    content.set(chunk, offset);
    offset += chunk.length;
  }
  return content;
}

const CFB_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const XML_PART = /\.(xml|rels|opf|ncx|xhtml|html?|svg)$/i;

export function isCompoundFile(bytes: Uint8Array): boolean {
  return CFB_SIGNATURE.every((byte, index) => bytes[index] === byte);
}

/**
 * An Office, OpenDocument or EPUB container: refuses what is not a ZIP with a message that says
 * what it is instead (a password-protected Office file is an OLE compound file holding an encrypted
 * package, as is a legacy .doc/.xls/.ppt), inflates the wanted parts within the limits, and refuses
 * XML parts that declare entities before any XML parser sees them.
 */
export function openContainer(bytes: Uint8Array, options: UnzipOptions & { legacyHint?: string }): ZipArchive {
  if (isCompoundFile(bytes)) {
    throw new DocumentExtractionError(
      `the ${options.label} file is password-protected (encrypted)${options.legacyHint ? ` or ${options.legacyHint}` : ""}, so it cannot be read`,
    );
  }
  if (!isZip(bytes)) throw new DocumentExtractionError(`the file is not a valid ${options.label} file (it is not a ZIP container)`);
  const archive = unzip(bytes, options);
  for (const [name, content] of archive.files) {
    if (!XML_PART.test(name)) continue;
    // XML keywords are case-sensitive; a byte search keeps this cheap on large sheet parts.
    const buffer = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    const doctype = buffer.indexOf("<!DOCTYPE");
    if (doctype !== -1 || buffer.includes("<!ENTITY")) {
      refuseEntityDeclarations(utf8.decode(content.subarray(Math.max(0, doctype), Math.max(0, doctype) + 65536)), options.label);
      if (buffer.includes("<!ENTITY")) refuseEntityDeclarations("<!ENTITY", options.label);
    }
  }
  return archive;
}
