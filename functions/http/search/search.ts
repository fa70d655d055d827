import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./search.route.ts";
import { type RerankOutcome, rerankResults } from "../../shared/workflows/rerank.ts";
import { search } from "../../shared/workflows/search.ts";
import { expandHits } from "../../shared/workflows/expansion.ts";

/** Semantic, keyword or hybrid search over one partition: the `x-tenant-id` tenant, or records without a tenant. */
export const handler = httpHandler(
  route.search,
  async ({ namespace, tenantId, body }) => {
    const { results, outcome } = await rerankResults(namespace, body, await search(namespace, tenantId, body));
    // After reranking: the reranker judges the hit itself, not the context around it.
    const answered = body.expand ? await expandHits(namespace, tenantId, results, body.expand) : results;
    return { ...ok(answered), headers: rerankHeaders(outcome) };
  },
);

function rerankHeaders(outcome: RerankOutcome | null): Record<string, string> {
  if (!outcome) return {};
  return { "x-rerank": outcome.status, ...("model" in outcome ? { "x-rerank-model": outcome.model } : {}) };
}
