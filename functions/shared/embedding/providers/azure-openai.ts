import type { EmbeddingConfigOf } from "../../domain/catalogs/embedding-providers.ts";
import { HttpEmbedder, type HttpEmbedderOptions, parseOpenAIStyle, type ProviderSpec, trimSlash } from "../http-embedder.ts";
import type { Embedder } from "../types.ts";

export function create(config: EmbeddingConfigOf<"AZURE_OPENAI">, options: { http?: HttpEmbedderOptions } = {}): Embedder {
  return new HttpEmbedder(azureSpec(config, options.http?.baseUrl), config.model, options.http ?? {});
}

function azureSpec(config: EmbeddingConfigOf<"AZURE_OPENAI">, baseUrl?: string): ProviderSpec {
  const base = trimSlash(baseUrl ?? `https://${config.resourceName}.openai.azure.com`);
  const url =
    `${base}/openai/deployments/${encodeURIComponent(config.deployment)}/embeddings` +
    `?api-version=${encodeURIComponent(config.apiVersion)}`;
  return {
    provider: "AZURE_OPENAI",
    label: "Azure OpenAI",
    apiKey: config.apiKey,
    maxBatch: 2048,
    requestBudget: 250_000,
    // The deployment, not a body field, selects the model on Azure.
    build: (texts) => ({ url, headers: { "api-key": config.apiKey }, body: { input: texts, encoding_format: "float" } }),
    parse: (body) => parseOpenAIStyle(body),
  };
}
