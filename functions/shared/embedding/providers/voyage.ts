import type { EmbeddingConfigOf } from "../../domain/catalogs/embedding-providers.ts";
import { HttpEmbedder, type HttpEmbedderOptions, parseOpenAIStyle, type ProviderSpec, trimSlash } from "../http-embedder.ts";
import type { Embedder } from "../types.ts";

export function create(config: EmbeddingConfigOf<"VOYAGE">, options: { http?: HttpEmbedderOptions } = {}): Embedder {
  return new HttpEmbedder(voyageSpec(config, options.http?.baseUrl), config.model, options.http ?? {});
}

function voyageSpec(config: EmbeddingConfigOf<"VOYAGE">, baseUrl?: string): ProviderSpec {
  const base = trimSlash(baseUrl ?? "https://api.voyageai.com/v1");
  return {
    provider: "VOYAGE",
    label: "Voyage AI",
    apiKey: config.apiKey,
    maxBatch: 128,
    // The strictest Voyage models cap a request at 120,000 tokens.
    requestBudget: 100_000,
    build: (texts, kind) => ({
      url: `${base}/embeddings`,
      headers: { authorization: `Bearer ${config.apiKey}` },
      body: { input: texts, model: config.model, input_type: kind },
    }),
    parse: (body) => parseOpenAIStyle(body),
  };
}
