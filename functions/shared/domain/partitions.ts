import type { DocumentRecord } from "./document.ts";
import { embeddingDimension } from "./catalogs/embedding-providers.ts";
import type { NamespaceRecord } from "./namespace.ts";

/**
 * One (namespace, tenant) pair. Partitions are fully isolated: a query with `tenantId: null` sees
 * only what was written with `tenantId: null`, never a tenant's vectors. `dimension` is the
 * namespace's embedding dimension.
 */
export interface VectorPartition {
  namespaceId: string;
  tenantId: string | null;
  dimension: number;
}

/** The partition a document's vectors live in: its namespace and tenant, at its namespace's dimension. */
export function partitionOf(document: Pick<DocumentRecord, "namespaceId" | "tenantId">, namespace: NamespaceRecord): VectorPartition {
  return {
    namespaceId: document.namespaceId,
    tenantId: document.tenantId,
    dimension: embeddingDimension(namespace.embeddingConfig.provider, namespace.embeddingConfig.model),
  };
}
