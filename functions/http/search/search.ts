import { httpHandler, ok } from "../../shared/http/handler.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { searchBody } from "../../shared/domain/search.ts";
import { type RerankOutcome, rerankResults } from "../../shared/workflows/rerank.ts";
import { search } from "../../shared/workflows/search.ts";

/** Semantic, keyword or hybrid search over one partition: the `x-tenant-id` tenant, or records without a tenant. */
export const handler = httpHandler(
  { path: namespacePath, tenant: true, namespace: "active", body: searchBody },
  async ({ namespace, tenantId, body }) => {
    const { results, outcome } = await rerankResults(namespace, body, await search(namespace, tenantId, body));
    return { ...ok(results), headers: rerankHeaders(outcome) };
  },
);

function rerankHeaders(outcome: RerankOutcome | null): Record<string, string> {
  if (!outcome) return {};
  return { "x-rerank": outcome.status, ...("model" in outcome ? { "x-rerank-model": outcome.model } : {}) };
}
