import type { EmbeddingConfig } from "../domain/namespace.ts";
import { bedrockEmbedder, type BedrockEmbedderOptions } from "./bedrock.ts";
import { httpEmbedder, type HttpEmbedderOptions } from "./http-providers.ts";
import { LocalHashEmbedder } from "./local-hash.ts";
import type { Embedder } from "./types.ts";

export { EmbeddingError, isEmbeddingError, type Embedder } from "./types.ts";

export interface EmbedderOptions {
  http?: HttpEmbedderOptions;
  bedrock?: BedrockEmbedderOptions;
}

/** The embedder of a namespace's `embeddingConfig`; the same one serves ingestion and search. */
export function embedderFor(config: EmbeddingConfig, options: EmbedderOptions = {}): Embedder {
  switch (config.provider) {
    case "LOCAL":
      return new LocalHashEmbedder();
    case "BEDROCK":
      return bedrockEmbedder(config.model, options.bedrock);
    case "OPENAI":
    case "AZURE_OPENAI":
    case "VOYAGE":
    case "GOOGLE":
      return httpEmbedder(config, options.http);
    default: {
      const unknown: never = config;
      throw new Error(`unknown embedding provider ${(unknown as { provider: string }).provider}`);
    }
  }
}

export interface EmbeddedBatch {
  /** Position of the batch's first text in the input. */
  offset: number;
  vectors: Float32Array[];
  tokens: number;
}

/**
 * Embeds any number of texts in batches of the embedder's `maxBatch`, in order. `onBatch` sees each
 * batch as soon as it is ready, so a caller can write to the store as it goes (and a failure later
 * loses only the batches not yet written).
 */
export async function embedAll(
  embedder: Embedder,
  texts: string[],
  onBatch?: (batch: EmbeddedBatch) => void | Promise<void>,
): Promise<{ vectors: Float32Array[]; tokens: number }> {
  const vectors: Float32Array[] = [];
  let tokens = 0;
  for (let offset = 0; offset < texts.length; offset += embedder.maxBatch) {
    const batch = await embedder.embedDocuments(texts.slice(offset, offset + embedder.maxBatch));
    tokens += batch.tokens;
    vectors.push(...batch.vectors);
    if (onBatch) await onBatch({ offset, vectors: batch.vectors, tokens: batch.tokens });
  }
  return { vectors, tokens };
}
