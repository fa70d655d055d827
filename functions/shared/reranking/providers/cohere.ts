import { httpReranker, relevanceResults } from "../http-reranker.ts";
import type { RerankerSettings } from "../registry.ts";
import type { Reranker } from "../types.ts";

/** Cohere's v2 Rerank API (`POST /v2/rerank`). */
export function create(settings: RerankerSettings): Reranker {
  return httpReranker(
    {
      provider: "COHERE",
      defaultBaseUrl: "https://api.cohere.com",
      build: (base, query, documents, topN) => ({
        url: `${base}/v2/rerank`,
        headers: {},
        body: { model: settings.model, query, documents, top_n: topN },
      }),
      scores: (body) => relevanceResults(body.results),
    },
    settings,
  );
}
