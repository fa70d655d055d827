
/**
 * Turns text into vectors for one namespace's model. Every vector is L2-normalised, so stores can
 * rank by dot product. `tokens` is what the provider embedded: its own usage report where it gives
 * one, otherwise the estimate the implementation documents.
 */
export interface Embedder {
  readonly dimension: number;
  /** The most texts one `embedDocuments` call sends in a single provider request. */
  readonly maxBatch: number;
  embedDocuments(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number }>;
  embedQuery(text: string): Promise<{ vector: Float32Array; tokens: number }>;
}

/**
 * A provider failure whose message is safe to show to the caller (it never contains a credential).
 * `retryable` says whether trying the same work later may succeed (rate limits, outages), as opposed
 * to a rejected key or an invalid request, which will fail again.
 */
export class EmbeddingError extends Error {
  /** The registry id of the provider that failed. */
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryable: boolean;

  constructor(provider: string, message: string, options: { status?: number; retryable?: boolean } = {}) {
    super(message);
    this.name = "EmbeddingError";
    this.provider = provider;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }
}

export function isEmbeddingError(error: unknown): error is EmbeddingError {
  return error instanceof EmbeddingError;
}

/** Scales in place to unit length; a zero vector stays zero rather than becoming NaN. */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i]!;
    sum += value * value;
  }
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  }
  return vector;
}

/**
 * The count used where a provider reports no usage: about four characters per token, the rule of
 * thumb the providers themselves publish for English text.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
