import type { Reranker } from "./types.ts";

/** The port side of the reranking catalog (domain/catalogs/reranking-providers.ts): what a provider module exports. */
export interface RerankerSettings {
  model: string;
  /** For providers reached with the namespace owner's key. */
  apiKey?: string;
  /** Replaces the provider's base URL (`RERANKER_BASE_URLS`). */
  baseUrl?: string;
}

export interface RerankingProviderModule {
  createReranker(settings: RerankerSettings): Reranker;
}
