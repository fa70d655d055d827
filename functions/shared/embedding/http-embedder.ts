import { setTimeout as sleep } from "node:timers/promises";
import { embeddingDimension } from "./registry.ts";
import type { EmbeddingProviderId } from "./registry.ts";
import { logger } from "../platform/logger.ts";
import { EmbeddingError, type Embedder, estimateTokens, normalizeInPlace } from "./types.ts";

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

interface ProviderRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

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

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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

// Shapes of the providers' keys (OpenAI `sk-…`, Voyage `pa-…`, Google `AIza…`, Azure 32 hex), also
// when masked with `*`, so a key other than the configured one is not echoed either.
const KEY_SHAPED = /\b(?:sk-|pa-)[-_A-Za-z0-9*.]{8,}|\bAIza[-_A-Za-z0-9*]{8,}|\b[0-9a-fA-F]{32}\b/g;

/** Provider keys can appear in echoed error text; remove the exact key and anything key-shaped. */
function scrub(text: string, apiKey: string): string {
  let safe = apiKey.length >= 4 ? text.split(apiKey).join("[redacted]") : text;
  safe = safe.replace(KEY_SHAPED, "[redacted]");
  safe = safe.replace(/\s+/g, " ").trim();
  return safe.length > 300 ? `${safe.slice(0, 297)}...` : safe;
}

async function errorDetail(response: Response, apiKey: string): Promise<string> {
  let raw: string;
  try {
    raw = await response.text();
  } catch {
    return "";
  }
  let detail = raw;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isRecord(parsed)) {
      const error = parsed.error;
      if (isRecord(error) && typeof error.message === "string") detail = error.message;
      else if (typeof error === "string") detail = error;
      else if (typeof parsed.detail === "string") detail = parsed.detail;
      else if (typeof parsed.message === "string") detail = parsed.message;
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the text, scrubbed and shortened.
  }
  return scrub(detail, apiKey);
}

/** Milliseconds the server asked for: OpenAI's `retry-after-ms`, else `Retry-After` seconds or date. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter over the upper half, so retries neither stampede nor collapse to 0. */
export function backoffMs(attempt: number, baseMs: number, capMs: number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return name === "TimeoutError" || name === "AbortError";
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

  private async request(request: ProviderRequest): Promise<unknown> {
    const { provider, label, apiKey } = this.spec;
    const { maxAttempts, timeoutMs, retryBaseDelayMs, maxRetryDelayMs } = this.options;
    const payload = JSON.stringify(request.body);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= maxAttempts;
      let response: Response;
      try {
        response = await fetch(request.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", ...request.headers },
          body: payload,
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        // Network errors can carry the URL or socket details; the user sees only the kind of failure.
        const limit = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
        const reason = isTimeout(error) ? `did not answer within ${limit}` : "could not be reached";
        logger.warn("embedding request failed", { provider, attempt, reason, error: scrub(String(error), apiKey) });
        if (last) {
          throw new EmbeddingError(provider, `${label} ${reason} (gave up after ${attempt} attempts)`, { retryable: true });
        }
        await sleep(backoffMs(attempt, retryBaseDelayMs, maxRetryDelayMs));
        continue;
      }

      if (response.ok) {
        try {
          return await response.json();
        } catch {
          if (last) throw new EmbeddingError(provider, `${label} returned a response that is not JSON`, { retryable: true });
          await sleep(backoffMs(attempt, retryBaseDelayMs, maxRetryDelayMs));
          continue;
        }
      }

      const status = response.status;
      if (isRetryableStatus(status) && !last) {
        const asked = retryAfterMs(response.headers);
        await response.body?.cancel().catch(() => undefined);
        logger.warn("embedding request will be retried", { provider, attempt, status });
        await sleep(Math.min(maxRetryDelayMs, asked ?? backoffMs(attempt, retryBaseDelayMs, maxRetryDelayMs)));
        continue;
      }
      throw await this.failure(response, attempt);
    }
  }

  private async failure(response: Response, attempts: number): Promise<EmbeddingError> {
    const { provider, label, apiKey } = this.spec;
    const status = response.status;
    if (status === 401 || status === 403) {
      // Providers echo part of a rejected key in the message; say only what happened.
      await response.body?.cancel().catch(() => undefined);
      return new EmbeddingError(provider, `${label} rejected the API key (HTTP ${status})`, { status });
    }
    const detail = await errorDetail(response, apiKey);
    const suffix = detail ? `: ${detail}` : "";
    if (status === 429) {
      return new EmbeddingError(provider, `${label} rate limit exceeded (gave up after ${attempts} attempts)${suffix}`, {
        status,
        retryable: true,
      });
    }
    if (isRetryableStatus(status)) {
      return new EmbeddingError(provider, `${label} failed with HTTP ${status} (gave up after ${attempts} attempts)${suffix}`, {
        status,
        retryable: true,
      });
    }
    if (status === 404) {
      return new EmbeddingError(provider, `${label} did not find the model or deployment (HTTP 404)${suffix}`, { status });
    }
    return new EmbeddingError(provider, `${label} refused the request (HTTP ${status})${suffix}`, { status });
  }
}
