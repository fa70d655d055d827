import type { FormatExtractor } from "../types.ts";
import { parse as parseCsv } from "csv-parse/sync";
import { DocumentExtractionError } from "../extraction-error.ts";
import { textFormatExtractor } from "../text-decoding.ts";

/** CSV in whatever delimiter the header line uses; one row per paragraph, each value named by its column. */
const extractor = textFormatExtractor("csv", csvToText);

export function csvToText(text: string): string {
  return delimitedToText(text, sniffDelimiter(text), "CSV");
}


const DELIMITER_CANDIDATES = [",", ";", "\t", "|"] as const;

/**
 * Excel writes `;`-separated "CSV" wherever the decimal separator is a comma, so the delimiter is
 * the candidate seen most often in the header line (outside quotes); ties go to the comma.
 */
function sniffDelimiter(text: string): string {
  const counts = new Map<string, number>(DELIMITER_CANDIDATES.map((candidate) => [candidate, 0]));
  let inQuotes = false;
  const limit = Math.min(text.length, 65536);
  for (let index = 0; index < limit; index++) {
    const char = text[index]!;
    if (char === '"') inQuotes = !inQuotes;
    else if (inQuotes) continue;
    else if (char === "\n") break;
    else if (counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  let best: string = ",";
  for (const candidate of DELIMITER_CANDIDATES) {
    if ((counts.get(candidate) ?? 0) > (counts.get(best) ?? 0)) best = candidate;
  }
  return best;
}

/**
 * One paragraph per row, one `column: value` line per non-empty cell, so every chunk carries the
 * column names its values need to mean anything. The first row is always read as the header.
 */
export function delimitedToText(text: string, delimiter: string, label: string): string {
  const [header, ...records] = text.includes('"') ? parseQuoted(text, delimiter, label) : splitUnquoted(text, delimiter);
  if (!header) return "";
  const names = header.map((name, column) => name.replace(/\s+/g, " ").trim() || `column ${column + 1}`);
  // A lone row may be data with no header; keeping it beats silently dropping it.
  if (records.length === 0) return header.map(cleanCell).filter(Boolean).join(" | ");

  const labels = names.map((name) => `${name}: `);
  const blocks: string[] = [];
  for (const record of records) {
    let block = "";
    for (let column = 0; column < record.length; column++) {
      const cell = cleanCell(record[column]!);
      if (cell) block += `${block ? "\n" : ""}${labels[column] ?? `column ${column + 1}: `}${cell}`;
    }
    if (block) blocks.push(block);
  }
  return blocks.join("\n\n");
}

/**
 * Without a single quote character there is nothing to unescape, and plain splitting is far cheaper
 * than csv-parse's byte-by-byte state machine on files of many short fields (numeric exports, logs).
 */
function splitUnquoted(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.split("\n")) {
    if (line !== "") rows.push(line.split(delimiter));
  }
  return rows;
}

function parseQuoted(text: string, delimiter: string, label: string): string[][] {
  try {
    return parseCsv(text, {
      delimiter,
      // Line endings are already LF; left to auto-detect, csv-parse re-scans for the record
      // delimiter until it finds one, which makes a long single-line file take seconds.
      record_delimiter: "\n",
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
    });
  } catch (error) {
    throw new DocumentExtractionError(`invalid ${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Blank lines inside a cell would look like the end of its row. */
function cleanCell(value: string): string {
  const trimmed = value.trim();
  return trimmed.includes("\n") ? trimmed.replace(/\n\s*\n/g, "\n") : trimmed;
}

export function create(): FormatExtractor {
  return extractor;
}
