import { CONTAINER_BUDGETS, checkDeadline, checkPageCount, containerLimits, DocumentExtractionError, tooLargeWhenDecompressed } from "../limits.ts";
import { markdownTable, OffsetWriter } from "../markdown.ts";
import type { ExtractedDocument, ExtractedSection, ExtractionOptions, FormatExtractor } from "../types.ts";
import { descendants, parseXml } from "../xml.ts";
import { isCompoundFile, isZip, openContainer, rezipStored, textOf, type ZipArchive } from "../zip.ts";

/**
 * Workbooks (.xlsx, .xlsm, .xls, .ods) through @e965/xlsx, the maintained republish of SheetJS
 * (the `xlsx` package on the registry is frozen at 0.18.5 with two unfixed advisories). Each sheet
 * becomes a section, `## <sheet name>` followed by its used range as a Markdown table with the
 * first row as header, and carries its `sheet` name. Cells are read as displayed (formatted
 * numbers and dates), formulas as their cached values. ZIP-based workbooks are handed to SheetJS
 * as the parts we inflated within the limits; legacy .xls files are not compressed, so their
 * size is already bounded by the upload's.
 */

const LABEL = "spreadsheet";
const SKIPPED_PARTS = /^(xl\/(media|embeddings|printerSettings|pivotCache)\/|Pictures\/|Thumbnails\/)/;

async function extract(bytes: Uint8Array, options: ExtractionOptions): Promise<ExtractedDocument> {
  const { limits } = options;
  let input: Uint8Array = bytes;
  if (isZip(bytes)) {
    const archive = openContainer(bytes, { label: LABEL, limits: containerLimits(limits, "spreadsheet"), want: (name) => !SKIPPED_PARTS.test(name) });
    refuseRepeatedSheets(archive, limits);
    input = rezipStored(archive.files);
  } else if (!isCompoundFile(bytes)) {
    throw new DocumentExtractionError("the file is not a spreadsheet (.xlsx, .xls or .ods)");
  } else if (bytes.length > CONTAINER_BUDGETS.spreadsheet.maxTotalBytes) {
    // A legacy .xls is not compressed, but SheetJS expands it as much as the XML of a workbook.
    throw tooLargeWhenDecompressed(LABEL, "the legacy workbook", CONTAINER_BUDGETS.spreadsheet.maxTotalBytes);
  }
  checkDeadline(limits, LABEL);
  const XLSX = await import("@e965/xlsx");
  let workbook: import("@e965/xlsx").WorkBook;
  try {
    workbook = XLSX.read(input, {
      type: "array",
      dense: true,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      bookVBA: false,
      sheetStubs: false,
      WTF: false,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/password|encrypt/i.test(message)) throw new DocumentExtractionError("the spreadsheet is password-protected (encrypted), so it cannot be read");
    throw new DocumentExtractionError(`the spreadsheet is corrupt and cannot be read (${message})`);
  }
  checkPageCount(workbook.SheetNames.length, limits, LABEL, "sheets");

  const writer = new OffsetWriter();
  const sections: ExtractedSection[] = [];
  for (const name of workbook.SheetNames) {
    checkDeadline(limits, LABEL);
    const sheet = workbook.Sheets[name];
    const rows = sheet ? XLSX.utils.sheet_to_json<string[]>(sheet, { header: 1, raw: false, defval: "", blankrows: false }) : [];
    const table = markdownTable(rows.map((row) => row.map((cell) => String(cell ?? ""))));
    sections.push({ offset: writer.append(table ? `## ${name}\n\n${table}` : `## ${name}`), metadata: { sheet: name } });
  }
  return { text: writer.toString(), sections, totalPages: workbook.SheetNames.length, notes: [] };
}

/**
 * SheetJS reads a sheet's part once for every sheet that names it, so a 40 KB workbook listing one
 * part 9,999 times would have it parsed as often; Excel never shares a part between sheets. The
 * sheet count is checked here too, before SheetJS reads them all.
 */
function refuseRepeatedSheets(archive: ZipArchive, limits: ExtractionOptions["limits"]): void {
  const workbookXml = textOf(archive, "xl/workbook.xml");
  const relsXml = textOf(archive, "xl/_rels/workbook.xml.rels");
  if (workbookXml === undefined || relsXml === undefined) return;
  const targets = new Map<string, string>();
  for (const relationship of descendants(parseXml(relsXml, LABEL), "Relationship")) {
    const { Id: id, Target: target } = relationship.attributes;
    if (id && target) targets.set(id, target.replace(/^\/?(xl\/)?/, ""));
  }
  const sheets = descendants(parseXml(workbookXml, LABEL), "sheet");
  checkPageCount(sheets.length, limits, LABEL, "sheets");
  const named = new Map<string, number>();
  for (const sheet of sheets) {
    const target = targets.get(sheet.attributes["r:id"] ?? "");
    if (target === undefined) continue;
    const count = (named.get(target) ?? 0) + 1;
    named.set(target, count);
    if (count > 1) {
      const total = sheets.filter((other) => targets.get(other.attributes["r:id"] ?? "") === target).length;
      throw new DocumentExtractionError(`the spreadsheet names its part ${target} for ${total} sheets; a part is read for one sheet only, so it was not parsed`);
    }
  }
}

const extractor: FormatExtractor = { extract };

export function create(): FormatExtractor {
  return extractor;
}
