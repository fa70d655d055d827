import { httpHandler, ok } from "../../shared/http/handler.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { searchBody } from "../../shared/domain/search.ts";
import { logger } from "../../shared/platform/logger.ts";
import { rerankingAvailable } from "../../shared/reranking/registry.ts";
import { search } from "../../shared/workflows/search.ts";

/** Semantic, keyword or hybrid search over one partition: the `x-tenant-id` tenant, or records without a tenant. */
export const handler = httpHandler(
  { path: namespacePath, tenant: true, namespace: "active", body: searchBody },
  async ({ namespace, tenantId, body }) => {
    const results = await search(namespace, tenantId, body);
    if (!body.rerank || rerankingAvailable()) return ok(results);
    // Callers written against rerank-capable deployments send `rerank: true` (the default): they get
    // the retrieval order, and are told rather than left to assume the results were reranked.
    logger.info("rerank requested, but no reranker is configured: results are in retrieval order", { namespaceId: namespace.id });
    return { ...ok(results), headers: { "x-rerank": "unavailable" } };
  },
);
