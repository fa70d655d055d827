/**
 * Embedding providers and the models each accepts, with the vector dimension of each model. The
 * first model listed is the provider's default.
 */
export const EMBEDDING_MODELS = {
  LOCAL: { "local-hash-384": 384 },
  BEDROCK: { "amazon.titan-embed-text-v2:0": 1024, "cohere.embed-english-v3": 1024, "cohere.embed-multilingual-v3": 1024 },
  OPENAI: { "text-embedding-3-small": 1536, "text-embedding-3-large": 3072 },
  AZURE_OPENAI: { "text-embedding-3-small": 1536, "text-embedding-3-large": 3072 },
  VOYAGE: {
    "voyage-3-large": 1024,
    "voyage-3": 1024,
    "voyage-3-lite": 512,
    "voyage-code-3": 1024,
    "voyage-finance-2": 1024,
    "voyage-law-2": 1024,
  },
  GOOGLE: { "text-embedding-004": 768 },
} as const;

export type EmbeddingProvider = keyof typeof EMBEDDING_MODELS;
export const EMBEDDING_PROVIDERS = Object.keys(EMBEDDING_MODELS) as EmbeddingProvider[];

export function modelsOf(provider: EmbeddingProvider): [string, ...string[]] {
  return Object.keys(EMBEDDING_MODELS[provider]) as [string, ...string[]];
}

export function defaultModel(provider: EmbeddingProvider): string {
  return modelsOf(provider)[0];
}

export function embeddingDimension(provider: EmbeddingProvider, model: string): number {
  const dimension = (EMBEDDING_MODELS[provider] as Record<string, number>)[model];
  if (dimension === undefined) throw new Error(`unknown model ${model} for ${provider}`);
  return dimension;
}
