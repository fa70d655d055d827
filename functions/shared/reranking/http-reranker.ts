import { isRecord, postToProvider, type ProviderRequest, trimSlash } from "../platform/provider-http.ts";
import { RERANKING_PROVIDERS, type RerankingProviderId } from "../domain/catalogs/reranking-providers.ts";
import type { RerankerSettings } from "./registry.ts";
import { rankedFromIndexes, RerankError, type Reranker } from "./types.ts";

/**
 * The client behind every reranker reached over HTTPS with the namespace owner's key: each provider
 * module says where its API lives, how to ask and where the scores are. A search waits for the
 * answer, so a slow provider gets one retry within a short timeout and then the search degrades to
 * its retrieval order (workflows/rerank.ts) rather than keeping the caller waiting.
 */
export interface RerankSpec {
  provider: RerankingProviderId;
  defaultBaseUrl: string;
  build(base: string, query: string, documents: string[], topN: number): ProviderRequest;
  /** `{ index, score }` per returned document, or undefined when the body is not the provider's shape. */
  scores(body: Record<string, unknown>): { index: unknown; score: unknown }[] | undefined;
}

// At most about 5.5 s in all, inside the search function's 10 s with retrieval already done.
const RETRIES = { timeoutMs: 2_500, maxAttempts: 2, retryBaseDelayMs: 200, maxRetryDelayMs: 500 };

export function httpReranker(spec: RerankSpec, settings: RerankerSettings): Reranker {
  const apiKey = settings.apiKey ?? "";
  const base = trimSlash(settings.baseUrl ?? spec.defaultBaseUrl);
  const label = RERANKING_PROVIDERS[spec.provider].label;
  const caller = {
    purpose: "rerank",
    provider: spec.provider,
    label,
    apiKey,
    fail: (message: string, options: { status?: number; retryable?: boolean }) => new RerankError(spec.provider, message, options),
  };
  return {
    model: settings.model,
    async rerank(query, candidates, topN) {
      if (candidates.length === 0) return [];
      const request = spec.build(base, query, candidates.map((candidate) => candidate.text), topN);
      request.headers = { authorization: `Bearer ${apiKey}`, ...request.headers };
      const body = await postToProvider(caller, request, RETRIES);
      const scored = isRecord(body) ? spec.scores(body) : undefined;
      if (!scored) throw new RerankError(spec.provider, `${label} answered in an unexpected shape`);
      return rankedFromIndexes(spec.provider, candidates, scored, topN);
    },
  };
}

/** `results: [{ index, relevance_score }]`, the shape Cohere and ZeroEntropy answer in. */
export function relevanceResults(list: unknown): { index: unknown; score: unknown }[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((item: unknown) => (isRecord(item) ? { index: item.index, score: item.relevance_score } : { index: undefined, score: undefined }));
}
