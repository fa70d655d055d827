import { getDocuments, SEARCH_FIELDS } from "../db/documents.ts";
import type { DocumentRecord } from "../domain/document.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import type { SearchRequest } from "../domain/search.ts";
import { DELETION_STATUSES } from "../domain/statuses.ts";
import { embedderFor } from "../embedding/index.ts";
import { chunkId, parseVectorKey } from "../domain/chunks.ts";
import { matchesFilter } from "../domain/metadata-filter.ts";
import { vectorStore } from "../vector-store/index.ts";
import { MAX_TOP_K } from "../vector-store/types.ts";
import { type KeywordHit, loadPartitionIndex, rankBm25 } from "../keyword-index/bm25.ts";
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

/** Reciprocal rank fusion constant: the usual 60 lets agreement between lists outweigh one high rank. */
const RRF_K = 60;
/** BM25 has no upper bound; this maps it into 0–1 monotonically (a score of 5 becomes 0.5). */
const BM25_HALF_SCORE = 5;

/**
 * Searches one partition of a namespace: the caller's tenant, or without a tenant the records that
 * have none. Whatever the mode, a candidate is kept only if its document still exists, is not being
 * deleted and serves that exact run (its current generation), so a deleted or replaced chunk is
 * never returned and a re-ingested document is never returned twice.
 */
export async function search(namespace: NamespaceRecord, tenantId: string | null, request: SearchRequest): Promise<SearchResult[]> {
  const pool = Math.min(MAX_TOP_K, Math.max(request.topK * 2, request.topK + 10));
  const lists: Candidate[][] = [];
  if (request.mode !== "keyword") lists.push(await semanticCandidates(namespace, tenantId, request, pool));
  if (request.mode !== "semantic") lists.push(await keywordCandidates(namespace, tenantId, request, pool));
  const ranked = request.mode === "hybrid" ? fuse(lists[0]!, lists[1]!) : lists[0]!;
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

async function semanticCandidates(namespace: NamespaceRecord, tenantId: string | null, request: SearchRequest, pool: number): Promise<Candidate[]> {
  const { vector } = await (await embedderFor(namespace.embeddingConfig)).embedQuery(request.query);
  const matches = await (await vectorStore()).query(partitionOf({ namespaceId: namespace.id, tenantId }, namespace), vector, {
    topK: pool,
    filter: request.filter,
  });
  const candidates: Candidate[] = [];
  for (const match of matches) {
    const parsed = parseVectorKey(match.key);
    if (!parsed) continue;
    candidates.push({ ...parsed, text: match.text, metadata: match.metadata, score: match.score });
  }
  return keepCurrent(candidates, namespace.id, tenantId);
}

/**
 * Walks the BM25 ranking in order and keeps hits that pass the filter and belong to their
 * document's current run, reading documents only as hits reach them, until the pool is full.
 */
async function keywordCandidates(namespace: NamespaceRecord, tenantId: string | null, request: SearchRequest, pool: number): Promise<Candidate[]> {
  const index = await loadPartitionIndex(namespace.id, tenantId);
  const documents = new Map<string, DocumentRecord | undefined>();
  const candidates: Candidate[] = [];
  let batch: KeywordHit[] = [];
  const settle = async () => {
    const unknown = batch.map((hit) => hit.documentId).filter((id) => !documents.has(id));
    const found = await getDocuments(unknown, SEARCH_FIELDS);
    for (const id of unknown) documents.set(id, found.get(id));
    for (const hit of batch) {
      if (candidates.length >= pool) break;
      if (!isCurrentRun(documents.get(hit.documentId), hit.runId, namespace.id, tenantId)) continue;
      candidates.push({ ...hit, score: hit.bm25 / (hit.bm25 + BM25_HALF_SCORE) });
    }
    batch = [];
  };
  for (const hit of rankBm25(index, request.query)) {
    if (request.filter && !matchesFilter(hit.metadata, request.filter)) continue;
    batch.push(hit);
    if (batch.length >= pool - candidates.length) {
      await settle();
      if (candidates.length >= pool) break;
    }
  }
  if (batch.length > 0) await settle();
  return candidates;
}

function isCurrentRun(document: DocumentRecord | undefined, runId: string, namespaceId: string, tenantId: string | null): boolean {
  return (
    document !== undefined &&
    document.namespaceId === namespaceId &&
    document.tenantId === tenantId &&
    !DELETION_STATUSES.includes(document.status) &&
    document.generation?.runId === runId
  );
}

async function keepCurrent(candidates: Candidate[], namespaceId: string, tenantId: string | null): Promise<Candidate[]> {
  const documents = await getDocuments(candidates.map((candidate) => candidate.documentId), SEARCH_FIELDS);
  return candidates.filter((candidate) => {
    const document = documents.get(candidate.documentId);
    return isCurrentRun(document, candidate.runId, namespaceId, tenantId) && candidate.sequence < document!.generation!.totalChunks;
  });
}

/** Reciprocal rank fusion of two ranked lists, scaled so a chunk ranked first in both scores 1. */
function fuse(semantic: Candidate[], keyword: Candidate[]): Candidate[] {
  const fused = new Map<string, Candidate>();
  const add = (list: Candidate[]) =>
    list.forEach((candidate, rank) => {
      const key = chunkId(candidate.documentId, candidate.sequence);
      const contribution = 1 / (RRF_K + rank + 1);
      const existing = fused.get(key);
      if (existing) existing.score += contribution;
      else fused.set(key, { ...candidate, score: contribution });
    });
  add(semantic);
  add(keyword);
  const best = 2 / (RRF_K + 1);
  return [...fused.values()].map((candidate) => ({ ...candidate, score: candidate.score / best })).sort((a, b) => b.score - a.score);
}
