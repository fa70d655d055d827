import type { EmbeddingConfigOf } from "../../domain/catalogs/embedding-providers.ts";
import { HttpEmbedder, type HttpEmbedderOptions, parseOpenAIStyle, type ProviderSpec, trimSlash } from "../http-embedder.ts";
import type { Embedder } from "../types.ts";

export function create(config: EmbeddingConfigOf<"OPENAI">, options: { http?: HttpEmbedderOptions } = {}): Embedder {
  return new HttpEmbedder(openAISpec(config, options.http?.baseUrl), config.model, options.http ?? {});
}

function openAISpec(config: EmbeddingConfigOf<"OPENAI">, baseUrl?: string): ProviderSpec {
  const base = trimSlash(baseUrl ?? "https://api.openai.com/v1");
  return {
    provider: "OPENAI",
    label: "OpenAI",
    apiKey: config.apiKey,
    maxBatch: 2048,
    // OpenAI refuses requests above 300,000 tokens in total.
    requestBudget: 250_000,
    build: (texts) => ({
      url: `${base}/embeddings`,
      headers: { authorization: `Bearer ${config.apiKey}` },
      body: { model: config.model, input: texts, encoding_format: "float" },
    }),
    parse: (body) => parseOpenAIStyle(body),
  };
}
