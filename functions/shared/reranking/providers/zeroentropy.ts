import { httpReranker, relevanceResults } from "../http-reranker.ts";
import type { RerankerSettings } from "../registry.ts";
import type { Reranker } from "../types.ts";

/** ZeroEntropy's model API (`POST /v1/models/rerank`). */
export function create(settings: RerankerSettings): Reranker {
  return httpReranker(
    {
      provider: "ZEROENTROPY",
      defaultBaseUrl: "https://api.zeroentropy.dev",
      build: (base, query, documents, topN) => ({
        url: `${base}/v1/models/rerank`,
        headers: {},
        body: { model: settings.model, query, documents, top_n: topN },
      }),
      scores: (body) => relevanceResults(body.results),
    },
    settings,
  );
}
