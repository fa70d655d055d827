import { getDocuments, SEARCH_FIELDS } from "../db/documents.ts";
import type { DocumentRecord } from "../domain/document.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import type { SearchRequest } from "../domain/search.ts";
import { DELETION_STATUSES } from "../domain/statuses.ts";
import { embedderFor } from "../embedding/index.ts";
import { DEFAULT_HYBRID_SEMANTIC_WEIGHT, EMBEDDING_PROVIDERS, type EmbeddingProviderRow } from "../domain/catalogs/embedding-providers.ts";
import { chunkId, parseVectorKey } from "../domain/chunks.ts";
import { vectorStore } from "../vector-store/index.ts";
import { MAX_TOP_K, type VectorMatch } from "../vector-store/types.ts";
import { partitionOf } from "../domain/partitions.ts";
import { type MetadataValue } from "../domain/metadata-filter.ts";

export interface SearchResult {
  id: string;
  score: number;
  rerankScore?: number;
  text: string;
  metadata?: Record<string, MetadataValue>;
}

interface Candidate {
  documentId: string;
  runId: string;
  sequence: number;
  text: string;
  metadata: Record<string, MetadataValue>;
  score: number;
}

/** BM25 has no upper bound; this maps it into 0–1 monotonically (a score of 5 becomes 0.5). */
const BM25_HALF_SCORE = 5;

/**
 * Searches one partition of a namespace: the caller's tenant, or without a tenant the records that
 * have none. The vector store answers both kinds of query (S3 Vectors' `queryVector` and
 * `queryTexts` when deployed, the embedded store locally); hybrid asks both at once and fuses the
 * two lists here. Whatever the mode, a candidate is kept only if its document still exists, is not
 * being deleted and serves that exact run (its current generation), so a deleted or replaced chunk
 * is never returned and a re-ingested document is never returned twice.
 */
export async function search(
  namespace: NamespaceRecord,
  tenantId: string | null,
  request: Pick<SearchRequest, "query" | "topK" | "minScore" | "filter" | "mode" | "includeMetadata" | "semanticWeight">,
): Promise<SearchResult[]> {
  // Room for the stale chunks the generation rule drops, within the store's largest topK.
  const pool = Math.min(MAX_TOP_K, Math.max(request.topK * 2, request.topK + 10));
  const [semanticMatches, keywordMatches] = await Promise.all([
    request.mode !== "keyword" ? semanticCandidates(namespace, tenantId, request, pool) : null,
    request.mode !== "semantic" ? keywordCandidates(namespace, tenantId, request, pool) : null,
  ]);
  // One read of the candidates' documents for both lists (a BatchGetItem of at most 100 keys
  // when topK is at most 45), whatever the size of the partition.
  const current = await currentRuns([...(semanticMatches ?? []), ...(keywordMatches ?? [])], namespace.id, tenantId);
  const semantic = semanticMatches && semanticMatches.filter(current);
  const keyword = keywordMatches && keywordMatches.filter(current);
  const ranked = semantic && keyword ? fuse(semantic, keyword, request.semanticWeight ?? defaultSemanticWeight(namespace)) : (semantic ?? keyword!);
  return ranked
    .filter((candidate) => request.minScore === undefined || candidate.score >= request.minScore)
    .slice(0, request.topK)
    .map((candidate) => ({
      id: chunkId(candidate.documentId, candidate.sequence),
      score: candidate.score,
      text: candidate.text,
      ...(request.includeMetadata ? { metadata: candidate.metadata } : {}),
    }));
}

function defaultSemanticWeight(namespace: NamespaceRecord): number {
  const row: EmbeddingProviderRow = EMBEDDING_PROVIDERS[namespace.embeddingConfig.provider];
  return row.hybridSemanticWeight ?? DEFAULT_HYBRID_SEMANTIC_WEIGHT;
}

async function semanticCandidates(namespace: NamespaceRecord, tenantId: string | null, request: Pick<SearchRequest, "query" | "filter">, pool: number): Promise<Candidate[]> {
  const { vector } = await (await embedderFor(namespace.embeddingConfig)).embedQuery(request.query);
  const matches = await (await vectorStore()).query(partitionOf({ namespaceId: namespace.id, tenantId }, namespace), vector, { topK: pool, filter: request.filter });
  return candidatesOf(matches, (score) => score);
}

async function keywordCandidates(namespace: NamespaceRecord, tenantId: string | null, request: Pick<SearchRequest, "query" | "filter">, pool: number): Promise<Candidate[]> {
  const matches = await (await vectorStore()).queryText(partitionOf({ namespaceId: namespace.id, tenantId }, namespace), request.query, {
    topK: pool,
    filter: request.filter,
  });
  return candidatesOf(matches, (bm25) => bm25 / (bm25 + BM25_HALF_SCORE));
}

function candidatesOf(matches: VectorMatch[], scale: (score: number) => number): Candidate[] {
  const candidates: Candidate[] = [];
  for (const match of matches) {
    const parsed = parseVectorKey(match.key);
    if (!parsed) continue;
    candidates.push({ ...parsed, text: match.text, metadata: match.metadata, score: scale(match.score) });
  }
  return candidates;
}

/** Whether a document's chunks may be served from a partition: it is that partition's and not being deleted. */
export function servesPartition(document: DocumentRecord | undefined, namespaceId: string, tenantId: string | null): document is DocumentRecord {
  return document !== undefined && document.namespaceId === namespaceId && document.tenantId === tenantId && !DELETION_STATUSES.includes(document.status);
}

function isCurrentRun(document: DocumentRecord | undefined, runId: string, namespaceId: string, tenantId: string | null): boolean {
  return servesPartition(document, namespaceId, tenantId) && document.generation?.runId === runId;
}

/** Whether a candidate belongs to its document's current generation, from one read of the documents. */
async function currentRuns(candidates: Candidate[], namespaceId: string, tenantId: string | null): Promise<(candidate: Candidate) => boolean> {
  const documents = await getDocuments(candidates.map((candidate) => candidate.documentId), SEARCH_FIELDS);
  return (candidate) => {
    const document = documents.get(candidate.documentId);
    return isCurrentRun(document, candidate.runId, namespaceId, tenantId) && candidate.sequence < document!.generation!.totalChunks;
  };
}

/**
 * Relative score fusion: each list's scores scaled to 0–1 by its own best and worst (min-max, with
 * a floor of 1% so a chunk in a list always gets more from it than one missing from it), then
 * weighted, `semanticWeight` for the semantic list and the rest for keyword. Ties (the chunks only
 * one list found, at weight 0 or 1) go to the more similar chunk. Unlike rank fusion (RRF, what S3
 * Vectors' own hybrid query does), a list whose scores say "one clear winner" keeps that margin:
 * bench/retrieval-quality.ts measures both, and the weights, per embedder.
 */
const LIST_FLOOR = 0.01;

export function fuse(semantic: Candidate[], keyword: Candidate[], semanticWeight: number): Candidate[] {
  const fused = new Map<string, { candidate: Candidate; similarity: number }>();
  const add = (list: Candidate[], weight: number, similarity: boolean) => {
    if (list.length === 0) return;
    let high = Number.NEGATIVE_INFINITY;
    let low = Number.POSITIVE_INFINITY;
    for (const candidate of list) (high = Math.max(high, candidate.score)), (low = Math.min(low, candidate.score));
    const span = high - low;
    for (const candidate of list) {
      const scaled = span > 0 ? LIST_FLOOR + (1 - LIST_FLOOR) * ((candidate.score - low) / span) : 1;
      const key = chunkId(candidate.documentId, candidate.sequence);
      let entry = fused.get(key);
      if (!entry) fused.set(key, (entry = { candidate: { ...candidate, score: 0 }, similarity: 0 }));
      entry.candidate.score += weight * scaled;
      if (similarity) entry.similarity = scaled;
    }
  };
  add(semantic, semanticWeight, true);
  add(keyword, 1 - semanticWeight, false);
  return [...fused.values()]
    .sort((a, b) => b.candidate.score - a.candidate.score || b.similarity - a.similarity || (chunkId(a.candidate.documentId, a.candidate.sequence) < chunkId(b.candidate.documentId, b.candidate.sequence) ? -1 : 1))
    .map(({ candidate }) => ({ ...candidate, score: Math.min(1, Math.max(0, candidate.score)) }));
}
