import { config } from "../platform/env.ts";
import { S3_VECTORS_LIMITS } from "./limits.ts";
import type { VectorPartition } from "../domain/partitions.ts";
import type { VectorStore } from "./types.ts";

/**
 * Admission against S3 Vectors' index quota. Every (namespace, tenant) partition is an index, and
 * every namespace has one registry index, in a bucket that holds at most 10,000. New partitions are
 * refused at request time once the bucket reaches a ceiling below that quota: the gap absorbs the
 * partitions that requests admitted meanwhile create (counts are cached for a minute), so work that
 * was accepted does not meet the quota itself later.
 */

export interface IndexUsage {
  indexes: number;
  /** Past this count no new partition is admitted (`VECTOR_INDEX_CEILING`). */
  ceiling: number;
  /** S3 Vectors' indexes per vector bucket. */
  quota: number;
}

/** The caller's request needs a partition the ceiling leaves no room for. */
export class PartitionCeilingError extends Error {
  constructor(readonly usage: IndexUsage) {
    super(
      `this deployment's vector store holds ${usage.indexes} indexes and admits new namespace/tenant partitions up to ` +
        `${usage.ceiling} (S3 Vectors allows ${usage.quota} per vector bucket); ingest into an existing tenant, ` +
        `delete unused namespaces, or ask the operator for more room`,
    );
    this.name = "PartitionCeilingError";
  }
}

export function indexCeiling(): number {
  const ceiling = config.vectorIndexCeiling();
  if (ceiling > S3_VECTORS_LIMITS.maxIndexesPerBucket) {
    throw new Error(`VECTOR_INDEX_CEILING must be at most ${S3_VECTORS_LIMITS.maxIndexesPerBucket}, the S3 Vectors quota`);
  }
  return ceiling;
}

export async function indexUsage(
  store: VectorStore,
  options: { fresh?: boolean; partition?: Pick<VectorPartition, "namespaceId" | "tenantId"> } = {},
): Promise<IndexUsage> {
  return { indexes: await store.countIndexes(options), ceiling: indexCeiling(), quota: S3_VECTORS_LIMITS.maxIndexesPerBucket };
}

/** Throws PartitionCeilingError when writing to `partition` would create indexes past the ceiling. */
export async function assertRoomForPartition(store: VectorStore, partition: Pick<VectorPartition, "namespaceId" | "tenantId">): Promise<void> {
  // The quota is per bucket: the one this partition's index goes to.
  const usage = await indexUsage(store, { partition });
  // A new partition creates at most two indexes; below the ceiling by that much, nothing to look up.
  if (usage.indexes + 2 <= usage.ceiling) return;
  const needed = await store.indexesNeededFor(partition);
  if (needed > 0 && usage.indexes + needed > usage.ceiling) throw new PartitionCeilingError(usage);
}
