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

/**
 * Whether this deployment can rerank. No provider is built yet, so searches that ask for reranking
 * (the agentset default) get their retrieval order and are told so (`x-rerank: unavailable`).
 */
export function rerankingAvailable(): boolean {
  return Object.keys(RERANKING_PROVIDERS).length > 0;
}
