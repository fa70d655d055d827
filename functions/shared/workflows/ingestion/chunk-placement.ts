import type { ExtractedDocument } from "../../extraction/types.ts";
import type { TextChunk } from "../../text/chunker.ts";

/** Longest sheet name kept in a chunk's metadata (Excel allows 31 characters; OpenDocument more). */
export const MAX_SHEET_NAME_CHARACTERS = 100;

export interface ChunkPlacement {
  page_number?: number;
  sheet?: string;
  slide?: number;
  /** The chunk's text opens with this many characters repeating its table's header (and sheet name): see chunker.ts. */
  repeated_header?: number;
}

/**
 * Where each chunk sits in its source: the page its text starts on (paged formats), the sheet or
 * slide of the section it starts in, and how much of its text repeats a table's header. Judged at a chunk's first visible character, so a chunk
 * that opens with the blank line before a new slide belongs to that slide. Chunks come in text
 * order, so one pass walks the sections alongside them.
 */
export function chunkPlacements(chunks: readonly TextChunk[], extracted: Pick<ExtractedDocument, "firstPage" | "sections">): ChunkPlacement[] {
  const sections = extracted.sections ?? [];
  let next = 0;
  return chunks.map((chunk) => {
    const placement: ChunkPlacement = {};
    if (chunk.page !== undefined) placement.page_number = chunk.page + (extracted.firstPage ?? 1) - 1;
    const slice = chunk.repeated ? chunk.text.slice(chunk.repeated) : chunk.text;
    const visibleStart = chunk.start + (slice.length - slice.trimStart().length);
    while (next < sections.length && sections[next]!.offset <= visibleStart) next++;
    const section = sections[next - 1];
    if (section?.metadata.sheet !== undefined) placement.sheet = section.metadata.sheet.slice(0, MAX_SHEET_NAME_CHARACTERS);
    if (section?.metadata.slide !== undefined) placement.slide = section.metadata.slide;
    if (chunk.repeated) placement.repeated_header = chunk.repeated;
    return placement;
  });
}
