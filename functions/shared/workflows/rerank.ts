import type { NamespaceRecord } from "../domain/namespace.ts";
import type { SearchRequest } from "../domain/search.ts";
import { config } from "../platform/env.ts";
import { logger } from "../platform/logger.ts";
import { chooseReranker, rerankerFor } from "../reranking/index.ts";
import type { SearchResult } from "./search.ts";

/**
 * What became of a search's `rerank: true`, told to the caller in `x-rerank` (and `x-rerank-model`):
 * reranked by a model; unavailable because no reranker is configured (the offline local stack); or
 * failed, in which case the results keep their retrieval order.
 */
export type RerankOutcome = { status: "reranked"; model: string } | { status: "failed"; model: string } | { status: "unavailable" };

/**
 * Reranks retrieval results as agentset does: the reranker sees every retrieved candidate (`topK`)
 * and the best `rerankLimit` (default `topK`) come back, best first, each with its `rerankScore`.
 * Without a reranker, or when it fails, the retrieval order is kept, trimmed to `rerankLimit` so a
 * caller gets the same number of results either way; a failure is a warning in the logs, never an
 * error to the caller.
 */
export async function rerankResults(
  namespace: NamespaceRecord,
  request: SearchRequest,
  results: SearchResult[],
): Promise<{ results: SearchResult[]; outcome: RerankOutcome | null }> {
  if (!request.rerank) return { results, outcome: null };
  const limit = request.rerankLimit ?? request.topK;
  const choice = chooseReranker(namespace.rerankingConfig, request.rerankModel, {
    defaultProvider: config.defaultReranker(),
    region: config.awsRegion(),
  });
  if (!choice) {
    logger.info("rerank requested, but no reranker is configured: results are in retrieval order", { namespaceId: namespace.id });
    return { results: results.slice(0, limit), outcome: { status: "unavailable" } };
  }
  const model = `${choice.provider.toLowerCase()}:${choice.model}`;
  if (results.length === 0) return { results, outcome: { status: "reranked", model } };
  try {
    const reranker = await rerankerFor(choice, config.rerankerBaseUrls());
    const ranked = await reranker.rerank(request.query, results.map(({ id, text }) => ({ id, text })), limit);
    const byId = new Map(results.map((result) => [result.id, result]));
    return { results: ranked.map(({ id, score }) => ({ ...byId.get(id)!, rerankScore: score })), outcome: { status: "reranked", model } };
  } catch (error) {
    logger.warn("reranking failed: results are in retrieval order", {
      namespaceId: namespace.id,
      model,
      error: error instanceof Error ? error.message : String(error),
    });
    return { results: results.slice(0, limit), outcome: { status: "failed", model } };
  }
}
