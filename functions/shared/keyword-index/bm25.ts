import { getObjectText, listKeys, putObject } from "../storage/objects.ts";
import { keywordPartitionPrefix, keywordSegmentKey } from "../storage/object-keys.ts";
import type { ChunksFile } from "../domain/chunks.ts";
import { type MetadataValue } from "../domain/metadata-filter.ts";
import { stem, tokenize } from "../text/analyser.ts";

/**
 * Keyword search without a search cluster: every completed document run writes one immutable
 * segment (its chunks with their term frequencies) under its partition's prefix in S3. A query
 * lists the partition's segments, reads them (each is cached for the life of the process, since a
 * segment never changes), and scores chunks with BM25. Consistency with ingestion comes from the
 * same rule as for vectors: a segment counts only when its run is the document's current generation,
 * so a replaced or deleted document's chunks are never returned even before their segment is gone.
 */
export interface KeywordSegment {
  documentId: string;
  runId: string;
  metadata: Record<string, MetadataValue>;
  chunks: { sequence: number; text: string; length: number; terms: Record<string, number>; metadata: Record<string, MetadataValue> }[];
}

/** The analyser shared by indexing and querying: the local embedder's words, stemmed. */
export function analyse(text: string): string[] {
  return tokenize(text).map(stem);
}

export function buildSegment(documentId: string, runId: string, chunksFile: ChunksFile): KeywordSegment {
  return {
    documentId,
    runId,
    metadata: chunksFile.metadata,
    chunks: chunksFile.chunks.map((chunk) => {
      const words = analyse(chunk.text);
      const terms: Record<string, number> = {};
      for (const word of words) terms[word] = (terms[word] ?? 0) + 1;
      return { sequence: chunk.metadata.sequence_number, text: chunk.text, length: words.length, terms, metadata: chunk.metadata };
    }),
  };
}

export async function writeSegment(namespaceId: string, tenantId: string | null, segment: KeywordSegment): Promise<string> {
  const key = keywordSegmentKey(namespaceId, tenantId, segment.documentId, segment.runId);
  await putObject(key, JSON.stringify(segment), "application/json");
  return key;
}

const MAX_CACHED_SEGMENTS = 20_000;
const segmentCache = new Map<string, KeywordSegment>();

async function loadSegment(key: string): Promise<KeywordSegment | null> {
  const cached = segmentCache.get(key);
  if (cached) return cached;
  const text = await getObjectText(key);
  if (text === null) return null;
  const segment = JSON.parse(text) as KeywordSegment;
  if (segmentCache.size >= MAX_CACHED_SEGMENTS) segmentCache.delete(segmentCache.keys().next().value!);
  segmentCache.set(key, segment);
  return segment;
}

/**
 * The partition's segments merged into one inverted index (term → chunks with their term
 * frequencies), rebuilt only when the set of segments changes. A query then touches just the
 * postings of its own terms instead of every chunk.
 */
export interface PartitionIndex {
  segments: KeywordSegment[];
  /** For each chunk of the partition: its segment and its position in that segment. */
  chunkSegment: Uint32Array;
  chunkPosition: Uint32Array;
  chunkLength: Float64Array;
  averageLength: number;
  postings: Map<string, { chunks: Uint32Array; frequencies: Uint32Array }>;
}

const partitionCache = new Map<string, { signature: string; index: PartitionIndex }>();

export async function loadPartitionIndex(namespaceId: string, tenantId: string | null): Promise<PartitionIndex> {
  const prefix = keywordPartitionPrefix(namespaceId, tenantId);
  const keys: string[] = [];
  for await (const page of listKeys(prefix)) keys.push(...page);
  keys.sort();
  const signature = keys.join("\n");
  const cached = partitionCache.get(prefix);
  if (cached && cached.signature === signature) return cached.index;
  const segments: KeywordSegment[] = [];
  for (let start = 0; start < keys.length; start += 32) {
    const loaded = await Promise.all(keys.slice(start, start + 32).map(loadSegment));
    for (const segment of loaded) if (segment) segments.push(segment);
  }
  const index = buildPartitionIndex(segments);
  partitionCache.set(prefix, { signature, index });
  return index;
}

export function buildPartitionIndex(segments: KeywordSegment[]): PartitionIndex {
  const total = segments.reduce((sum, segment) => sum + segment.chunks.length, 0);
  const chunkSegment = new Uint32Array(total);
  const chunkPosition = new Uint32Array(total);
  const chunkLength = new Float64Array(total);
  const building = new Map<string, { chunks: number[]; frequencies: number[] }>();
  let chunk = 0;
  let lengthSum = 0;
  segments.forEach((segment, segmentIndex) => {
    segment.chunks.forEach((entry, position) => {
      chunkSegment[chunk] = segmentIndex;
      chunkPosition[chunk] = position;
      chunkLength[chunk] = entry.length;
      lengthSum += entry.length;
      for (const [term, frequency] of Object.entries(entry.terms)) {
        let list = building.get(term);
        if (!list) building.set(term, (list = { chunks: [], frequencies: [] }));
        list.chunks.push(chunk);
        list.frequencies.push(frequency);
      }
      chunk += 1;
    });
  });
  const postings = new Map<string, { chunks: Uint32Array; frequencies: Uint32Array }>();
  for (const [term, list] of building) postings.set(term, { chunks: Uint32Array.from(list.chunks), frequencies: Uint32Array.from(list.frequencies) });
  return { segments, chunkSegment, chunkPosition, chunkLength, averageLength: total > 0 ? lengthSum / total : 0, postings };
}

export interface KeywordHit {
  documentId: string;
  runId: string;
  sequence: number;
  text: string;
  metadata: Record<string, MetadataValue>;
  /** Raw BM25 score. */
  bm25: number;
}

const K1 = 1.2;
const B = 0.75;

/**
 * Every chunk matching at least one query term, best BM25 score first. Statistics cover every
 * segment present, including a replaced run's segment in the moment before it is removed; callers
 * decide which hits are current, so a stale chunk can shift scores slightly but is never returned.
 */
export function* rankBm25(index: PartitionIndex, query: string): Generator<KeywordHit> {
  const chunkCount = index.chunkLength.length;
  if (chunkCount === 0) return;
  const scores = new Map<number, number>();
  for (const term of new Set(analyse(query))) {
    const posting = index.postings.get(term);
    if (!posting) continue;
    const frequencyOfTerm = posting.chunks.length;
    const idf = Math.log(1 + (chunkCount - frequencyOfTerm + 0.5) / (frequencyOfTerm + 0.5));
    for (let i = 0; i < posting.chunks.length; i += 1) {
      const chunk = posting.chunks[i]!;
      const frequency = posting.frequencies[i]!;
      const normalised = K1 * (1 - B + (B * index.chunkLength[chunk]!) / index.averageLength);
      scores.set(chunk, (scores.get(chunk) ?? 0) + (idf * (frequency * (K1 + 1))) / (frequency + normalised));
    }
  }
  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  for (const [chunk, bm25] of ranked) {
    const segment = index.segments[index.chunkSegment[chunk]!]!;
    const entry = segment.chunks[index.chunkPosition[chunk]!]!;
    yield {
      documentId: segment.documentId,
      runId: segment.runId,
      sequence: entry.sequence,
      text: entry.text,
      metadata: { ...segment.metadata, ...entry.metadata },
      bm25,
    };
  }
}
