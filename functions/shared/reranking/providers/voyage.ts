import { httpReranker, relevanceResults } from "../http-reranker.ts";
import type { RerankerSettings } from "../registry.ts";
import type { Reranker } from "../types.ts";

/** Voyage AI's Rerank API (`POST /v1/rerank`); truncation on, so a long chunk is cut rather than refused. */
export function create(settings: RerankerSettings): Reranker {
  return httpReranker(
    {
      provider: "VOYAGE",
      defaultBaseUrl: "https://api.voyageai.com",
      build: (base, query, documents, topN) => ({
        url: `${base}/v1/rerank`,
        headers: {},
        body: { model: settings.model, query, documents, top_k: topN, truncation: true },
      }),
      scores: (body) => relevanceResults(body.data),
    },
    settings,
  );
}
