import type { EmbeddingConfigOf } from "../../domain/catalogs/embedding-providers.ts";
import { HttpEmbedder, type HttpEmbedderOptions, isRecord, type ProviderSpec, trimSlash } from "../http-embedder.ts";
import type { Embedder } from "../types.ts";

export function create(config: EmbeddingConfigOf<"GOOGLE">, options: { http?: HttpEmbedderOptions } = {}): Embedder {
  return new HttpEmbedder(googleSpec(config, options.http?.baseUrl), config.model, options.http ?? {});
}

function googleSpec(config: EmbeddingConfigOf<"GOOGLE">, baseUrl?: string): ProviderSpec {
  const base = trimSlash(baseUrl ?? "https://generativelanguage.googleapis.com/v1beta");
  const model = `models/${config.model}`;
  return {
    provider: "GOOGLE",
    label: "Google AI",
    apiKey: config.apiKey,
    maxBatch: 100,
    requestBudget: 200_000,
    build: (texts, kind) => ({
      url: `${base}/${model}:batchEmbedContents`,
      // Google accepts the key as `?key=` or as this header; the header keeps it out of URLs, which
      // end up in logs and in error text.
      headers: { "x-goog-api-key": config.apiKey },
      body: {
        requests: texts.map((text) => ({
          model,
          content: { parts: [{ text }] },
          taskType: kind === "query" ? "RETRIEVAL_QUERY" : "RETRIEVAL_DOCUMENT",
        })),
      },
    }),
    parse: (body) => {
      if (!isRecord(body) || !Array.isArray(body.embeddings)) return { vectors: [], tokens: undefined };
      // Google reports no usage for embeddings; the caller falls back to the documented estimate.
      return { vectors: body.embeddings.map((item: unknown) => (isRecord(item) ? item.values : undefined)), tokens: undefined };
    },
  };
}
