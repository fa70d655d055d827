import type { EmbeddingConfig } from "../domain/catalogs/embedding-providers.ts";
import { EMBEDDING_MODULES, type EmbedderOptions } from "./registry.ts";
import type { Embedder } from "./types.ts";

export { EmbeddingError, isEmbeddingError, type Embedder } from "./types.ts";
export type { EmbedderOptions };

/** The embedder of a namespace's `embeddingConfig`, from its registry row; the same one serves ingestion and search. */
export async function embedderFor(config: EmbeddingConfig, options: EmbedderOptions = {}): Promise<Embedder> {
  return (await EMBEDDING_MODULES[config.provider]()).create(config as never, options);
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
