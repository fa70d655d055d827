import { OffsetWriter } from "./markdown.ts";
import { textContinues } from "./paragraph-rules.ts";
import type { ExtractedDocument } from "./types.ts";

/**
 * One document from the page ranges it was extracted in (a long PDF read over several worker
 * steps), as if it had been read at once: texts joined the way a reader joins pages (a paragraph
 * that runs on over the break between two ranges continues), page offsets
 * moved to where each range starts, notes kept once each.
 */
export function joinPageRanges(parts: readonly ExtractedDocument[]): ExtractedDocument {
  if (parts.length === 0) throw new Error("joinPageRanges needs at least one part");
  const writer = new OffsetWriter();
  const pageOffsets: number[] = [];
  const notes = new Set<string>();
  let previous = "";
  for (const part of parts) {
    // A paragraph that runs over the page break between two ranges stays one paragraph, as it does inside a range.
    const start = writer.append(part.text, previous !== "" && textContinues(previous, part.text) ? "\n" : "\n\n");
    if (part.text !== "") previous = part.text;
    for (const offset of part.pageOffsets ?? [0]) pageOffsets.push(start + offset);
    for (const note of part.notes) notes.add(note);
  }
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  return {
    text: writer.toString(),
    pageOffsets,
    firstPage: first.firstPage ?? 1,
    lastPage: last.lastPage,
    totalPages: last.totalPages,
    notes: [...notes],
  };
}
