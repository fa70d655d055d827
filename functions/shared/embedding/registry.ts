import type { EmbeddingProviderId } from "../domain/catalogs/embedding-providers.ts";
import type { Embedder } from "./types.ts";

/**
 * The port side of the embedding catalog (domain/catalogs/embedding-providers.ts): the module of
 * each provider, imported on first use (a plain `() => import(...)`: a table no code calls is
 * dropped from the bundle with the modules it names). Every module a port loads exports `create`;
 * the table is typed by the catalog's ids, so a catalog row without its module does not type-check.
 */
export interface EmbedderOptions {
  /** HTTP providers: base URL and retry settings (tests point them at a local server). */
  http?: import("./http-embedder.ts").HttpEmbedderOptions;
  /** Bedrock: an injected client, concurrency. */
  bedrock?: import("./providers/bedrock.ts").BedrockEmbedderOptions;
}

/** What a provider module exports. */
export interface EmbeddingProviderModule {
  // Each module takes its own config shape (EmbeddingConfigOf<its id>); embedderFor passes the row's.
  create(config: never, options?: EmbedderOptions): Embedder;
}

// Typed rather than inferred from the imports: the modules import types back from here.
export const EMBEDDING_MODULES: Readonly<Record<EmbeddingProviderId, () => Promise<EmbeddingProviderModule>>> = {
  LOCAL: () => import("./providers/local-hash.ts"),
  BEDROCK: () => import("./providers/bedrock.ts"),
  OPENAI: () => import("./providers/openai.ts"),
  AZURE_OPENAI: () => import("./providers/azure-openai.ts"),
  VOYAGE: () => import("./providers/voyage.ts"),
  GOOGLE: () => import("./providers/google.ts"),
};
