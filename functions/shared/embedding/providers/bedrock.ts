import type { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { type EmbeddingConfigOf, embeddingDimension } from "../../domain/catalogs/embedding-providers.ts";
import type { EmbedderOptions } from "../registry.ts";
import { observed } from "../../platform/sdk-observer.ts";
import { EmbeddingError, type Embedder, estimateTokens, normalizeInPlace } from "../types.ts";
import { lazyImport } from "../../platform/lazy-import.ts";

/**
 * The deployed default provider: Bedrock models reached with the function's IAM role, no key.
 * Titan v2 embeds one text per call, so calls run with bounded concurrency; Cohere v3 takes up to 96
 * texts per call. Throttling and transient faults are retried by the SDK client (see `maxAttempts`).
 */

/** The Bedrock Runtime SDK module; only its types are imported statically (see `loadBedrockSdk`). */
type BedrockSdk = typeof import("@aws-sdk/client-bedrock-runtime");

/**
 * Only namespaces on the BEDROCK provider need the SDK, and the client is one of the largest the
 * service uses (with its event-stream and bearer-token support).
 */
const loadBedrockSdk = lazyImport<BedrockSdk>(() => import("@aws-sdk/client-bedrock-runtime"));

export interface BedrockEmbedderOptions {
  /** Injected in tests; by default one client per process, created on first use. */
  client?: BedrockRuntimeClient;
  /** Titan calls in flight at once for one `embedDocuments`. */
  concurrency?: number;
}

const TITAN = "amazon.titan-embed-text-v2:0";
// Bedrock refuses Cohere texts above this many characters even with truncation on, so longer chunks
// are cut here; the model's 512-token window would drop the rest anyway.
const COHERE_MAX_CHARS = 2048;
// Titan Text Embeddings V2 takes at most 50,000 characters (and 8,192 tokens, which it truncates
// itself); longer input is a ValidationException. The service's chunks and queries are far shorter,
// but the embedder is also the one place that knows the model, so it keeps the request valid.
const TITAN_MAX_CHARS = 50_000;

let sharedClient: BedrockRuntimeClient | undefined;
function defaultClient(sdk: BedrockSdk): BedrockRuntimeClient {
  // Five attempts with the SDK's standard backoff rides out the throttling bursts of bulk ingestion.
  sharedClient ??= observed(new sdk.BedrockRuntimeClient({ maxAttempts: 5 }));
  return sharedClient;
}

const decoder = new TextDecoder();

/** Turns SDK failures into messages a namespace owner can act on; SDK messages carry no secrets. */
function toEmbeddingError(error: unknown, model: string): EmbeddingError {
  const name = (error as { name?: string } | null)?.name ?? "";
  const message = (error as { message?: string } | null)?.message ?? "";
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  switch (name) {
    case "AccessDeniedException":
      // Third-party models subscribe the account through AWS Marketplace on first use; Bedrock
      // answers AccessDenied while that runs (up to a few minutes) and when the role lacks the
      // aws-marketplace permissions, so this one is worth trying again later.
      if (/marketplace|subscri/i.test(message)) {
        return new EmbeddingError(
          "BEDROCK",
          `Bedrock has not yet enabled ${model} for this account: its first use subscribes the account in AWS Marketplace, ` +
            "which takes a few minutes and needs aws-marketplace:Subscribe, Unsubscribe and ViewSubscriptions on the function's role " +
            "(the stack grants them) and a payment method on the account; see \"Model access\" in the README",
          { status, retryable: true },
        );
      }
      return new EmbeddingError("BEDROCK", `Bedrock denied access to ${model}; enable model access in this region`, { status });
    case "ResourceNotFoundException":
      return new EmbeddingError("BEDROCK", `Bedrock model ${model} is not available in this region`, { status });
    case "ValidationException":
      return new EmbeddingError("BEDROCK", `Bedrock refused the request for ${model}: ${message.slice(0, 300)}`, { status });
    case "ThrottlingException":
    case "ServiceQuotaExceededException":
    case "ModelNotReadyException":
    case "ServiceUnavailableException":
    case "InternalServerException":
    case "ModelTimeoutException":
      return new EmbeddingError("BEDROCK", `Bedrock is busy or unavailable for ${model} (${name}); try again later`, {
        status,
        retryable: true,
      });
    default:
      return new EmbeddingError("BEDROCK", `Bedrock request for ${model} failed${name ? ` (${name})` : ""}`, {
        status,
        retryable: true,
      });
  }
}

function toVector(raw: unknown, dimension: number, model: string): Float32Array {
  if (!Array.isArray(raw) || raw.length !== dimension || !raw.every((value) => typeof value === "number" && Number.isFinite(value))) {
    const got = Array.isArray(raw) ? `${raw.length} dimensions` : "no vector";
    throw new EmbeddingError("BEDROCK", `Bedrock returned ${got} for ${model}, expected ${dimension}`, { retryable: false });
  }
  return normalizeInPlace(Float32Array.from(raw as number[]));
}

abstract class BedrockEmbedder implements Embedder {
  readonly dimension: number;
  abstract readonly maxBatch: number;
  protected readonly model: string;
  private readonly injectedClient: BedrockRuntimeClient | undefined;

  constructor(model: string, options: BedrockEmbedderOptions) {
    this.model = model;
    this.dimension = embeddingDimension("BEDROCK", model);
    this.injectedClient = options.client;
  }

  abstract embedDocuments(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number }>;
  abstract embedQuery(text: string): Promise<{ vector: Float32Array; tokens: number }>;

  protected async invoke(body: unknown): Promise<unknown> {
    // Outside the try: a failure to load the SDK is a deployment fault, not a Bedrock answer.
    const sdk = await loadBedrockSdk();
    const client = this.injectedClient ?? defaultClient(sdk);
    let response;
    try {
      response = await client.send(
        new sdk.InvokeModelCommand({
          modelId: this.model,
          contentType: "application/json",
          accept: "application/json",
          body: JSON.stringify(body),
        }),
      );
    } catch (error) {
      throw toEmbeddingError(error, this.model);
    }
    try {
      return JSON.parse(decoder.decode(response.body ?? new Uint8Array()));
    } catch {
      throw new EmbeddingError("BEDROCK", `Bedrock returned a response for ${this.model} that is not JSON`, { retryable: true });
    }
  }
}

class TitanEmbedder extends BedrockEmbedder {
  readonly maxBatch = 64;
  private readonly concurrency: number;

  constructor(options: BedrockEmbedderOptions) {
    super(TITAN, options);
    this.concurrency = Math.max(1, options.concurrency ?? 8);
  }

  async embedDocuments(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number }> {
    const vectors: Float32Array[] = new Array(texts.length);
    let tokens = 0;
    let next = 0;
    const worker = async () => {
      while (next < texts.length) {
        const index = next++;
        const embedded = await this.embedOne(texts[index]!);
        vectors[index] = embedded.vector;
        tokens += embedded.tokens;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, texts.length) }, worker));
    return { vectors, tokens };
  }

  async embedQuery(text: string): Promise<{ vector: Float32Array; tokens: number }> {
    // Titan v2 has no query/document distinction.
    return this.embedOne(text);
  }

  private async embedOne(text: string): Promise<{ vector: Float32Array; tokens: number }> {
    // Titan refuses empty input; a blank text has nothing to match, so it gets the zero vector.
    if (text.trim() === "") return { vector: new Float32Array(this.dimension), tokens: 0 };
    const body = (await this.invoke({ inputText: text.slice(0, TITAN_MAX_CHARS), dimensions: this.dimension, normalize: true })) as {
      embedding?: unknown;
      inputTextTokenCount?: unknown;
    } | null;
    const vector = toVector(body?.embedding, this.dimension, this.model);
    const tokens = typeof body?.inputTextTokenCount === "number" ? body.inputTextTokenCount : estimateTokens(text);
    return { vector, tokens };
  }
}

class CohereEmbedder extends BedrockEmbedder {
  readonly maxBatch = 96;

  async embedDocuments(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number }> {
    const vectors: Float32Array[] = [];
    let tokens = 0;
    for (let start = 0; start < texts.length; start += this.maxBatch) {
      const result = await this.embedBatch(texts.slice(start, start + this.maxBatch), "search_document");
      vectors.push(...result.vectors);
      tokens += result.tokens;
    }
    return { vectors, tokens };
  }

  async embedQuery(text: string): Promise<{ vector: Float32Array; tokens: number }> {
    const { vectors, tokens } = await this.embedBatch([text], "search_query");
    return { vector: vectors[0]!, tokens };
  }

  private async embedBatch(
    texts: string[],
    inputType: "search_document" | "search_query",
  ): Promise<{ vectors: Float32Array[]; tokens: number }> {
    const vectors: Float32Array[] = texts.map(() => new Float32Array(this.dimension));
    const sent: number[] = [];
    texts.forEach((text, index) => {
      if (text.trim() !== "") sent.push(index);
    });
    if (sent.length === 0) return { vectors, tokens: 0 };
    const inputs = sent.map((index) => texts[index]!.slice(0, COHERE_MAX_CHARS));
    const body = (await this.invoke({ texts: inputs, input_type: inputType, truncate: "END" })) as { embeddings?: unknown } | null;
    const embeddings = body?.embeddings;
    if (!Array.isArray(embeddings) || embeddings.length !== inputs.length) {
      throw new EmbeddingError("BEDROCK", `Bedrock returned a malformed response for ${this.model}`, { retryable: true });
    }
    sent.forEach((index, position) => {
      vectors[index] = toVector(embeddings[position], this.dimension, this.model);
    });
    // Cohere on Bedrock reports no usage: estimated from the characters actually sent.
    const tokens = inputs.reduce((sum, text) => sum + estimateTokens(text), 0);
    return { vectors, tokens };
  }
}

export function bedrockEmbedder(model: string, options: BedrockEmbedderOptions = {}): Embedder {
  if (model === TITAN) return new TitanEmbedder(options);
  if (model.startsWith("cohere.")) return new CohereEmbedder(model, options);
  throw new EmbeddingError("BEDROCK", `unsupported Bedrock embedding model ${model}`);
}

export function create(config: EmbeddingConfigOf<"BEDROCK">, options: EmbedderOptions = {}): Embedder {
  return bedrockEmbedder(config.model, options.bedrock);
}
