import type { Embedder } from "./types.ts";

/** The port side of the embedding catalog (domain/catalogs/embedding-providers.ts): what a provider module exports. */
export interface EmbedderOptions {
  /** HTTP providers: base URL and retry settings (tests point them at a local server). */
  http?: import("./http-embedder.ts").HttpEmbedderOptions;
  /** Bedrock: an injected client, concurrency. */
  bedrock?: import("./providers/bedrock.ts").BedrockEmbedderOptions;
}

/** What a provider module exports. */
export interface EmbeddingProviderModule {
  // Each module takes its own config shape (EmbeddingConfigOf<its id>); the factory passes the row's.
  createEmbedder(config: never, options?: EmbedderOptions): Embedder;
}
