import type { RerankingProviderId } from "../domain/catalogs/reranking-providers.ts";
import type { Reranker } from "./types.ts";

/**
 * The port side of the reranking catalog (domain/catalogs/reranking-providers.ts): the module of
 * each provider, imported on first use (a plain `() => import(...)`: a table no code calls is
 * dropped from the bundle with the modules it names). Every module a port loads exports `create`;
 * the table is typed by the catalog's ids, so a catalog row without its module does not type-check.
 */
export interface RerankerSettings {
  model: string;
  /** For providers reached with the namespace owner's key. */
  apiKey?: string;
  /** Replaces the provider's base URL (`RERANKER_BASE_URLS`). */
  baseUrl?: string;
}

export interface RerankingProviderModule {
  create(settings: RerankerSettings): Reranker;
}

// Typed rather than inferred from the imports: the modules import types back from here.
export const RERANKING_MODULES: Readonly<Record<RerankingProviderId, () => Promise<RerankingProviderModule>>> = {
  BEDROCK: () => import("./providers/bedrock.ts"),
  COHERE: () => import("./providers/cohere.ts"),
  VOYAGE: () => import("./providers/voyage.ts"),
  ZEROENTROPY: () => import("./providers/zeroentropy.ts"),
};
