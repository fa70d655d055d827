import type { MetadataFilter } from "../domain/metadata-filter.ts";
import type { VectorPartition } from "../domain/partitions.ts";
import type { MetadataValue } from "../domain/metadata-filter.ts";

export interface VectorRecord {
  key: string;
  vector: Float32Array;
  metadata: Record<string, MetadataValue>;
  text: string;
}

/**
 * `score` is, for a vector query, cosine similarity mapped to 0..1 as (1 + cos) / 2, the same for
 * every backend; for a text query, the BM25 score (0 and up, unbounded; comparable within one
 * answer only).
 */
export interface VectorMatch {
  key: string;
  score: number;
  text: string;
  metadata: Record<string, MetadataValue>;
}

export interface VectorQueryOptions {
  /** 1–100; larger values are clamped to 100 so every backend behaves alike. */
  topK: number;
  filter?: MetadataFilter;
}

export interface StoredVector {
  vector: Float32Array;
  text: string;
}

export interface VectorStore {
  /** Idempotent by key: writing a key again replaces its vector, metadata and text. */
  upsert(partition: VectorPartition, records: VectorRecord[]): Promise<void>;
  /** Keys that do not exist (and partitions that do not) are fine. */
  deleteKeys(partition: VectorPartition, keys: string[]): Promise<void>;
  /**
   * The stored vectors of these keys with their chunk text, for reusing a previous run's
   * embeddings; keys that do not exist (and partitions that do not) are absent from the result.
   */
  getVectors(partition: VectorPartition, keys: string[]): Promise<Map<string, StoredVector>>;
  /** Best first; an unknown partition has no matches. */
  query(partition: VectorPartition, vector: Float32Array, options: VectorQueryOptions): Promise<VectorMatch[]>;
  /**
   * Full-text search of the chunk text, ranked by BM25, best first; only records with at least one
   * of the query's terms match. An unknown partition, and a query without terms, have no matches.
   */
  queryText(partition: VectorPartition, text: string, options: VectorQueryOptions): Promise<VectorMatch[]>;
  /** Pages of keys, for reconciliation; order is unspecified. */
  listKeys(partition: VectorPartition): AsyncIterable<string[]>;
  dropPartition(partition: VectorPartition): Promise<void>;
  /** The partitions of a namespace that exist, for cascades (namespace deletion). */
  listPartitions(namespaceId: string): Promise<{ tenantId: string | null }[]>;
  /**
   * Every partition of every namespace, for reconciliation to find those of deleted namespaces.
   * Optional: a store that cannot enumerate its namespaces leaves it out.
   */
  listAllPartitions?(): Promise<VectorPartition[]>;
  /**
   * Vector indexes in the store's bucket (with `partition`, in the bucket that partition's index
   * lives in, where S3 Vectors' per-bucket quota applies): one per partition plus one registry per
   * namespace, as in S3 Vectors (the embedded store, one bucket, counts the same way). May be up to a
   * minute old unless `fresh`.
   */
  countIndexes(options?: { fresh?: boolean; partition?: Pick<VectorPartition, "namespaceId" | "tenantId"> }): Promise<number>;
  /** Indexes the first write to `partition` would create: 0, 1 (its own) or 2 (and its namespace's registry). */
  indexesNeededFor(partition: Pick<VectorPartition, "namespaceId" | "tenantId">): Promise<number>;
}

/** The most matches one query returns (the S3 Vectors limit, applied everywhere). */
export const MAX_TOP_K = 100;

export function clampTopK(topK: number): number {
  if (!Number.isFinite(topK)) return MAX_TOP_K;
  return Math.max(0, Math.min(MAX_TOP_K, Math.floor(topK)));
}
