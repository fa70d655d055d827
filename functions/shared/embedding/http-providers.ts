import { setTimeout as sleep } from "node:timers/promises";
import { embeddingDimension } from "../domain/embedding-models.ts";
import type { EmbeddingConfig } from "../domain/namespace.ts";
import { logger } from "../platform/logger.ts";
import { EmbeddingError, type Embedder, estimateTokens, normalizeInPlace } from "./types.ts";

/**
 * Embedders for the providers reached over HTTPS with the namespace owner's own key: OpenAI, Azure
 * OpenAI, Voyage and Google. One generic client does batching, retries and error mapping; each
 * provider only says how to build its request and read its response.
 */

type HttpProvider = "OPENAI" | "AZURE_OPENAI" | "VOYAGE" | "GOOGLE";
export type HttpEmbeddingConfig = Extract<EmbeddingConfig, { provider: HttpProvider }>;

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

type InputKind = "document" | "query";

interface ProviderRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

interface ProviderSpec {
  provider: HttpProvider;
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

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads `data[].embedding` (with `index`) and `usage.total_tokens`: the OpenAI shape, Voyage's too. */
function parseOpenAIStyle(body: unknown): { vectors: unknown[]; tokens: number | undefined } {
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

function openAISpec(config: Extract<HttpEmbeddingConfig, { provider: "OPENAI" }>, baseUrl?: string): ProviderSpec {
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

function azureSpec(config: Extract<HttpEmbeddingConfig, { provider: "AZURE_OPENAI" }>, baseUrl?: string): ProviderSpec {
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

function voyageSpec(config: Extract<HttpEmbeddingConfig, { provider: "VOYAGE" }>, baseUrl?: string): ProviderSpec {
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

function googleSpec(config: Extract<HttpEmbeddingConfig, { provider: "GOOGLE" }>, baseUrl?: string): ProviderSpec {
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

class HttpEmbedder implements Embedder {
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

export function httpEmbedder(config: HttpEmbeddingConfig, options: HttpEmbedderOptions = {}): Embedder {
  switch (config.provider) {
    case "OPENAI":
      return new HttpEmbedder(openAISpec(config, options.baseUrl), config.model, options);
    case "AZURE_OPENAI":
      return new HttpEmbedder(azureSpec(config, options.baseUrl), config.model, options);
    case "VOYAGE":
      return new HttpEmbedder(voyageSpec(config, options.baseUrl), config.model, options);
    case "GOOGLE":
      return new HttpEmbedder(googleSpec(config, options.baseUrl), config.model, options);
    default: {
      const unknown: never = config;
      throw new Error(`not an HTTP embedding provider: ${(unknown as { provider: string }).provider}`);
    }
  }
}
