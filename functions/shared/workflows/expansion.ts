import { getDocuments, SEARCH_FIELDS } from "../db/documents.ts";
import { parseChunkId, vectorKey } from "../domain/chunks.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import { partitionOf } from "../domain/partitions.ts";
import { type Expansion, EXPANSION_LIMITS } from "../domain/search.ts";
import { vectorStore } from "../vector-store/index.ts";
import { servesPartition } from "./search.ts";

/** A hit with the chunks around it, merged into one text; `hit` is where the hit's own text lies in it. */
export interface Passage {
  text: string;
  hit: { start: number; end: number };
  /** The sequence numbers of the first and last chunk merged (the hit's own when none around it remain). */
  chunks: { first: number; last: number };
}

interface Hit {
  id: string;
  text: string;
}

/**
 * Adds to each hit the chunks around it in its document (`before`/`after`, or all of a document of
 * at most EXPANSION_LIMITS.wholeDocumentChunks chunks with `wholeDocument`). Neighbours are read by
 * their vector keys from the partition the hit came from, of the document's current run only, so a
 * passage never mixes two versions of a document; each distinct neighbour is read once however many
 * hits share it. A hit whose document has since gone keeps a passage of its own text.
 */
export async function expandHits<T extends Hit>(
  namespace: NamespaceRecord,
  tenantId: string | null,
  hits: T[],
  expansion: Expansion,
  /** Read the hits' own chunks too (a caller that has only their ids); one not found gets an empty passage. */
  options: { readHits?: boolean } = {},
): Promise<(T & { passage: Passage })[]> {
  const located = hits.map((hit) => ({ hit, ...parseChunkId(hit.id) }));
  const documents = await getDocuments(
    located.flatMap((entry) => (entry.documentId ? [entry.documentId] : [])),
    [...SEARCH_FIELDS, "config"],
  );
  const wanted = new Map<string, { documentId: string; sequence: number }>();
  const ranges = located.map(({ documentId, sequence }) => {
    const document = documentId ? documents.get(documentId) : undefined;
    const generation = servesPartition(document, namespace.id, tenantId) ? document.generation : null;
    if (!documentId || sequence === undefined || !generation) return null;
    const whole = expansion.wholeDocument && generation.totalChunks <= EXPANSION_LIMITS.wholeDocumentChunks;
    const first = whole ? 0 : Math.max(0, sequence - expansion.before);
    const last = whole ? generation.totalChunks - 1 : Math.min(generation.totalChunks - 1, sequence + expansion.after);
    const keys: string[] = [];
    for (let neighbour = first; neighbour <= last; neighbour++) {
      if (neighbour === sequence && !options.readHits) continue;
      const key = vectorKey(documentId, generation.runId, neighbour);
      wanted.set(key, { documentId, sequence: neighbour });
      keys.push(key);
    }
    return { runId: generation.runId, first, last, overlap: document?.config?.chunkOverlap ?? 0 };
  });
  const texts = wanted.size === 0 ? new Map<string, { text: string }>() : await (await vectorStore()).getVectors(partitionOf({ namespaceId: namespace.id, tenantId }, namespace), [...wanted.keys()]);
  return located.map(({ hit, documentId, sequence }, index) => {
    const range = ranges[index];
    if (!range || !documentId || sequence === undefined) return { ...hit, passage: { text: hit.text, hit: { start: 0, end: hit.text.length }, chunks: { first: sequence ?? 0, last: sequence ?? 0 } } };
    const own = options.readHits ? texts.get(vectorKey(documentId, range.runId, sequence))?.text : hit.text;
    if (own === undefined) return { ...hit, passage: { text: "", hit: { start: 0, end: 0 }, chunks: { first: sequence, last: sequence } } };
    const pieces: { sequence: number; text: string }[] = [];
    for (let neighbour = range.first; neighbour <= range.last; neighbour++) {
      const text = neighbour === sequence ? own : texts.get(vectorKey(documentId, range.runId, neighbour))?.text;
      // A missing neighbour would leave a gap; the passage stops at it instead.
      if (text === undefined) {
        if (neighbour < sequence) pieces.length = 0;
        else break;
        continue;
      }
      pieces.push({ sequence: neighbour, text });
    }
    return { ...hit, passage: merge(pieces, sequence, range.overlap) };
  });
}

/**
 * Joins consecutive chunks. They are contiguous slices of the document, so without an overlap they
 * concatenate back to its text. Chunks of a document ingested with `chunkOverlap` repeat up to about
 * that much of the one before at their start; that repetition is dropped. The overlap is looked for
 * only then, since documents repeat phrases of their own.
 */
export function merge(pieces: { sequence: number; text: string }[], hitSequence: number, chunkOverlap = 0): Passage {
  let text = "";
  let hit = { start: 0, end: 0 };
  for (const piece of pieces) {
    const start = text.length - (chunkOverlap > 0 ? overlapOf(text, piece.text, chunkOverlap) : 0);
    text = text.slice(0, start) + piece.text;
    if (piece.sequence === hitSequence) hit = { start, end: start + piece.text.length };
  }
  return { text, hit, chunks: { first: pieces[0]?.sequence ?? hitSequence, last: pieces.at(-1)?.sequence ?? hitSequence } };
}

/**
 * The longest end of `before` that `after` starts with, within twice the configured overlap (the
 * chunker moves a cut to a word or sentence boundary).
 */
export function overlapOf(before: string, after: string, chunkOverlap: number): number {
  const probe = after.slice(0, Math.min(16, after.length - 1));
  if (probe === "") return 0;
  const bound = Math.min(2 * chunkOverlap, EXPANSION_LIMITS.overlapCharacters);
  for (let at = before.indexOf(probe, Math.max(0, before.length - bound)); at !== -1; at = before.indexOf(probe, at + 1)) {
    const tail = before.length - at;
    if (tail < after.length && after.startsWith(before.slice(at))) return tail;
  }
  return 0;
}

/**
 * At most `limit` characters of a passage, centred on its hit: the hit first (cut if it alone is
 * longer), then context shared between the two sides, so a cut never loses the hit itself.
 */
export function passageWindow(passage: Passage, limit: number): string {
  if (passage.text.length <= limit) return passage.text;
  const hitLength = passage.hit.end - passage.hit.start;
  if (hitLength >= limit) return passage.text.slice(passage.hit.start, passage.hit.start + limit);
  const spare = limit - hitLength;
  const before = Math.min(passage.hit.start, Math.max(Math.floor(spare / 2), spare - (passage.text.length - passage.hit.end)));
  const start = passage.hit.start - before;
  return passage.text.slice(start, start + limit);
}
