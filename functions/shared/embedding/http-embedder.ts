import { embeddingDimension } from "../domain/catalogs/embedding-providers.ts";
import type { EmbeddingProviderId } from "../domain/catalogs/embedding-providers.ts";
import { isRecord, postToProvider, type ProviderRequest } from "../platform/provider-http.ts";
import { EmbeddingError, type Embedder, estimateTokens, normalizeInPlace } from "./types.ts";

export { isRecord, trimSlash } from "../platform/provider-http.ts";

/**
 * The client behind every embedding provider reached over HTTPS with the namespace owner's own key
 * (embedding/providers/*.ts): batching, retries and error mapping live here; each provider module
 * only says how to build its request and read its response (a ProviderSpec).
 */

export interface HttpEmbedderOptions {
  /** Replaces the provider's base URL (scheme, host and version prefix); tests point it at a fake. */
  baseUrl?: string;
  /** Per HTTP request, not per call. */
  timeoutMs?: number;
  /** Attempts per request, the first included. */
  maxAttempts?: number;
  /** First backoff step; each retry doubles it. */
  retryBaseDelayMs?: number;
  /** Upper bound on any single wait, Retry-After included. */
  maxRetryDelayMs?: number;
}

export type InputKind = "document" | "query";

export interface ProviderSpec {
  provider: EmbeddingProviderId;
  label: string;
  apiKey: string;
  maxBatch: number;
  /**
   * Budget per request in conservatively estimated tokens (see `budgetCost`), under the provider's
   * per-request token cap, so a full batch of long chunks is split rather than refused.
   */
  requestBudget: number;
  build(texts: string[], kind: InputKind): ProviderRequest;
  /** Raw vectors in input order plus the provider's token count, if it reports one. */
  parse(body: unknown): { vectors: unknown[]; tokens: number | undefined };
}

const DEFAULTS = { timeoutMs: 30_000, maxAttempts: 5, retryBaseDelayMs: 500, maxRetryDelayMs: 20_000 };

/**
 * Worst-case tokens for splitting requests: ASCII runs about four characters a token, so a third is
 * generous; other scripts (CJK especially) can cost a token or more per character.
 */
function budgetCost(text: string): number {
  let ascii = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 128) ascii++;
  return Math.ceil(ascii / 3) + (text.length - ascii);
}

/** Reads `data[].embedding` (with `index`) and `usage.total_tokens`: the OpenAI shape, Voyage's too. */
export function parseOpenAIStyle(body: unknown): { vectors: unknown[]; tokens: number | undefined } {
  if (!isRecord(body) || !Array.isArray(body.data)) return { vectors: [], tokens: undefined };
  const vectors: unknown[] = [];
  body.data.forEach((item: unknown, position) => {
    if (!isRecord(item)) return;
    const index = typeof item.index === "number" ? item.index : position;
    vectors[index] = item.embedding;
  });
  const usage = isRecord(body.usage) ? body.usage : undefined;
  const tokens = typeof usage?.total_tokens === "number" ? usage.total_tokens : undefined;
  return { vectors, tokens };
}

export class HttpEmbedder implements Embedder {
  readonly dimension: number;
  readonly maxBatch: number;
  private readonly spec: ProviderSpec;
  private readonly model: string;
  private readonly options: Required<Omit<HttpEmbedderOptions, "baseUrl">>;

  constructor(spec: ProviderSpec, model: string, options: HttpEmbedderOptions) {
    this.spec = spec;
    this.model = model;
    this.maxBatch = spec.maxBatch;
    this.dimension = embeddingDimension(spec.provider, model);
    this.options = {
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxAttempts: Math.max(1, options.maxAttempts ?? DEFAULTS.maxAttempts),
      retryBaseDelayMs: options.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs,
      maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs,
    };
  }

  async embedDocuments(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number }> {
    return this.embed(texts, "document");
  }

  async embedQuery(text: string): Promise<{ vector: Float32Array; tokens: number }> {
    const { vectors, tokens } = await this.embed([text], "query");
    return { vector: vectors[0]!, tokens };
  }

  private async embed(texts: string[], kind: InputKind): Promise<{ vectors: Float32Array[]; tokens: number }> {
    const vectors: Float32Array[] = new Array(texts.length);
    let tokens = 0;
    // Providers reject empty input; a blank text has no content to match, so it gets the zero vector
    // (similarity 0 to everything) without a request.
    const pending: number[] = [];
    texts.forEach((text, index) => {
      if (text.trim() === "") vectors[index] = new Float32Array(this.dimension);
      else pending.push(index);
    });
    for (const group of this.requestGroups(texts, pending)) {
      const groupTexts = group.map((index) => texts[index]!);
      const result = await this.send(groupTexts, kind);
      group.forEach((index, position) => {
        vectors[index] = result.vectors[position]!;
      });
      tokens += result.tokens;
    }
    return { vectors, tokens };
  }

  /** Splits by the provider's input-count limit and by the per-request token budget. */
  private *requestGroups(texts: string[], indexes: number[]): Generator<number[]> {
    let group: number[] = [];
    let cost = 0;
    for (const index of indexes) {
      const textCost = budgetCost(texts[index]!);
      if (group.length > 0 && (group.length >= this.maxBatch || cost + textCost > this.spec.requestBudget)) {
        yield group;
        group = [];
        cost = 0;
      }
      group.push(index);
      cost += textCost;
    }
    if (group.length > 0) yield group;
  }

  private async send(texts: string[], kind: InputKind): Promise<{ vectors: Float32Array[]; tokens: number }> {
    const { provider, label } = this.spec;
    const body = await this.request(this.spec.build(texts, kind));
    const parsed = this.spec.parse(body);
    if (parsed.vectors.length !== texts.length) {
      throw new EmbeddingError(
        provider,
        `${label} returned ${parsed.vectors.length} embeddings for ${texts.length} inputs`,
        { retryable: true },
      );
    }
    const vectors = parsed.vectors.map((raw) => this.toVector(raw));
    const tokens = parsed.tokens ?? texts.reduce((sum, text) => sum + estimateTokens(text), 0);
    return { vectors, tokens };
  }

  private toVector(raw: unknown): Float32Array {
    const { provider, label } = this.spec;
    if (!Array.isArray(raw)) throw new EmbeddingError(provider, `${label} returned a malformed embedding`, { retryable: true });
    if (raw.length !== this.dimension) {
      throw new EmbeddingError(
        provider,
        `${label} returned vectors of ${raw.length} dimensions, but ${this.model} has ${this.dimension}` +
          (provider === "AZURE_OPENAI" ? "; check that the deployment runs that model" : ""),
      );
    }
    const vector = new Float32Array(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const value: unknown = raw[i];
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw new EmbeddingError(provider, `${label} returned a malformed embedding`, { retryable: true });
      }
      vector[i] = value;
    }
    return normalizeInPlace(vector);
  }

  private request(request: ProviderRequest): Promise<unknown> {
    const { provider, label, apiKey } = this.spec;
    return postToProvider(
      { purpose: "embedding", provider, label, apiKey, fail: (message, options) => new EmbeddingError(provider, message, options) },
      request,
      this.options,
    );
  }
}
