import type { Reranker } from "./types.ts";

/**
 * The reranking providers, by id: the models each offers and the module that talks to it, loaded on
 * first use (so naming a provider costs nothing). Adding a provider is one module under reranking/
 * exporting `createReranker`, and one row here. Which provider serves a request is decided by the
 * search workflow from the request's `rerankModel` and the deployment's configuration.
 */
export interface RerankerSettings {
  /** The provider's model id. */
  model: string;
  /** For providers reached with the caller's own key. */
  apiKey?: string;
  /** Replaces the provider's base URL; tests point it at a local server. */
  baseUrl?: string;
  /** AWS region, for Bedrock. */
  region?: string;
}

export interface RerankingProvider {
  readonly label: string;
  readonly models: readonly string[];
  readonly load: () => Promise<{ createReranker(settings: RerankerSettings): Reranker }>;
}

export const RERANKING_PROVIDERS = {} as const satisfies Record<string, RerankingProvider>;

export type RerankingProviderId = keyof typeof RERANKING_PROVIDERS;
