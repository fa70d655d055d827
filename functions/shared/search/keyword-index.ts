import { stem, tokenize } from "../embedding/local-hash.ts";
import { getObjectText, listKeys, putObject } from "../storage/objects.ts";
import { keywordPartitionPrefix, keywordSegmentKey } from "../storage/object-keys.ts";
import type { MetadataValue } from "../vector-store/types.ts";
import type { ChunksFile } from "../jobs/chunks-file.ts";

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

/** Every segment of a partition, read in parallel (bounded) and served from cache when seen before. */
export async function loadPartitionSegments(namespaceId: string, tenantId: string | null): Promise<KeywordSegment[]> {
  const keys: string[] = [];
  for await (const page of listKeys(keywordPartitionPrefix(namespaceId, tenantId))) keys.push(...page);
  const segments: KeywordSegment[] = [];
  for (let start = 0; start < keys.length; start += 32) {
    const loaded = await Promise.all(keys.slice(start, start + 32).map(loadSegment));
    for (const segment of loaded) if (segment) segments.push(segment);
  }
  return segments;
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
 * BM25 over the chunks of the segments that `isCurrent` accepts (statistics included: a stale run
 * must not skew document frequencies either).
 */
export function scoreBm25(
  segments: KeywordSegment[],
  query: string,
  options: { topK: number; isCurrent: (segment: KeywordSegment) => boolean; accept?: (metadata: Record<string, MetadataValue>) => boolean },
): KeywordHit[] {
  const queryTerms = [...new Set(analyse(query))];
  if (queryTerms.length === 0) return [];
  const current = segments.filter(options.isCurrent);
  let chunkCount = 0;
  let totalLength = 0;
  const documentFrequency = new Map<string, number>(queryTerms.map((term) => [term, 0]));
  for (const segment of current) {
    for (const chunk of segment.chunks) {
      chunkCount += 1;
      totalLength += chunk.length;
      for (const term of queryTerms) if (chunk.terms[term]) documentFrequency.set(term, documentFrequency.get(term)! + 1);
    }
  }
  if (chunkCount === 0) return [];
  const averageLength = totalLength / chunkCount;
  const idf = new Map(queryTerms.map((term) => {
    const frequency = documentFrequency.get(term)!;
    return [term, Math.log(1 + (chunkCount - frequency + 0.5) / (frequency + 0.5))];
  }));
  const hits: KeywordHit[] = [];
  for (const segment of current) {
    for (const chunk of segment.chunks) {
      let score = 0;
      for (const term of queryTerms) {
        const frequency = chunk.terms[term];
        if (!frequency) continue;
        score += idf.get(term)! * ((frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * chunk.length) / averageLength)));
      }
      if (score <= 0) continue;
      const metadata = { ...segment.metadata, ...chunk.metadata };
      if (options.accept && !options.accept(metadata)) continue;
      hits.push({ documentId: segment.documentId, runId: segment.runId, sequence: chunk.sequence, text: chunk.text, metadata, bm25: score });
    }
  }
  hits.sort((a, b) => b.bm25 - a.bm25 || (a.documentId < b.documentId ? -1 : 1) || a.sequence - b.sequence);
  return hits.slice(0, options.topK);
}
