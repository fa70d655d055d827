import type { EmbeddingConfig } from "../catalogs/embedding-providers.ts";
import type { NamespaceRecord } from "../namespace.ts";
import { withMaskedKey } from "../secrets.ts";
import type { Wire } from "./schemas.ts";

/** The namespace as callers see it: provider credentials masked, never echoed. */
export function namespaceToWire(record: NamespaceRecord): Wire<"Namespace"> {
  return {
    id: record.id,
    name: record.name,
    slug: record.slug,
    organizationId: record.organizationId,
    createdAt: record.createdAt,
    status: record.status,
    embeddingConfig: withMaskedKey(record.embeddingConfig as EmbeddingConfig & { apiKey?: string }),
    vectorStoreConfig: record.vectorStoreConfig,
    ...(record.rerankingConfig ? { rerankingConfig: withMaskedKey(record.rerankingConfig) } : {}),
  };
}
