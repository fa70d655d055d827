import { ENV } from "./env-names.ts";

/**
 * What one ingest worker proves it can hold (bench/large-file.ts): preparing a text document peaks
 * at up to about 25 times its size in memory (parse, chunk and stage it as strings), so 40 MiB
 * stays under the worker's 1,769 MB, heap limit and runtime included. Formats that read in less
 * memory per byte set their own limit in the format registry. See README "Limits".
 */
export const MAX_UPLOAD_BYTES_DEFAULT = 40 * 1024 * 1024;

/**
 * Configuration read from the environment. Read on use rather than at import so that the local
 * stack and tests can point a fresh process at fresh resources before the first call.
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`environment variable ${name} must be a positive integer`);
  return value;
}

/** The function's memory as Lambda reports it; outside Lambda (local stack, tests), the ingest worker's 1,769 MB. */
function functionMemoryMb(): number {
  return positiveInt("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", 1769);
}

function nonNegativeInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`environment variable ${name} must be a non-negative integer`);
  return value;
}

export const config = {
  tableName: () => required(ENV.tableName),
  bucketName: () => required(ENV.bucketName),
  ingestQueueUrl: () => required(ENV.ingestQueueUrl),
  deleteQueueUrl: () => required(ENV.deleteQueueUrl),
  mailQueueUrl: () => required(ENV.mailQueueUrl),
  stage: () => process.env[ENV.stage] ?? "dev",
  defaultEmbeddingProvider: () => process.env[ENV.defaultEmbeddingProvider] ?? "LOCAL",
  /** The reranker of namespaces without their own: BEDROCK deployed, NONE on the offline local stack. */
  defaultReranker: () => process.env[ENV.defaultReranker] ?? "NONE",
  /**
   * Base URLs replacing the reranking providers' own, by provider id (`{"COHERE": "https://…"}`): a
   * Cohere-compatible endpoint (Azure AI Foundry, a self-hosted server), or a test's server.
   */
  rerankerBaseUrls: (): Record<string, string> => {
    const raw = process.env[ENV.rerankerBaseUrls];
    if (!raw) return {};
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((value) => typeof value === "string")) {
      throw new Error(`environment variable ${ENV.rerankerBaseUrls} must be a JSON object of provider ids to URLs`);
    }
    return parsed as Record<string, string>;
  },
  awsRegion: () => process.env[ENV.awsRegion] ?? "us-east-1",
  /** The language model of chats without their own llmConfig: BEDROCK deployed, NONE on the offline local stack. */
  defaultLlm: () => process.env[ENV.defaultLlm] ?? "NONE",
  /** The deployer's choice of Bedrock chat model (`-c chatModel=`); unset, the region's default (domain/catalogs/llm-providers.ts). */
  defaultChatModel: (): string | undefined => process.env[ENV.defaultChatModel] || undefined,
  /** The Bedrock chat models callers may name (`-c chatModels=`, comma-separated); unset, the default set (domain/catalogs/llm-providers.ts). */
  chatModels: (): string[] | null => {
    const raw = process.env[ENV.chatModels];
    return raw ? raw.split(",").map((model) => model.trim()).filter(Boolean) : null;
  },
  /** `ses` deployed with a sender, `outbox` on the local stack, `none` otherwise (functions/shared/email/registry.ts). */
  emailBackend: () => process.env[ENV.emailBackend] ?? "none",
  /** Whether sign-in mail can go out at all: told to the function that queues it, which sends nothing itself. */
  emailBackendConfigured: () => config.emailBackend() !== "none",
  emailSender: () => required(ENV.emailSender),
  emailOutboxDir: () => required(ENV.emailOutboxDir),
  vectorStoreBackend: () => process.env[ENV.vectorStoreBackend] ?? "embedded",
  vectorBucketName: () => required(ENV.vectorBucketName),
  /** Vector buckets the partitions are hashed over (vector-store/s3-vectors.ts); 1: the stack's bucket only. */
  vectorBucketSlots: () => positiveInt(ENV.vectorBucketSlots, 1),
  uploadUrlTtlSeconds: () => positiveInt(ENV.uploadUrlTtlSeconds, 3600),
  downloadUrlTtlSeconds: () => positiveInt(ENV.downloadUrlTtlSeconds, 3600),
  /** One upload limit for every format, replacing the registry's per-format limits; unset: the registry decides. */
  maxUploadBytesOverride: (): number | undefined => (process.env[ENV.maxUploadBytes] ? positiveInt(ENV.maxUploadBytes, 0) : undefined),
  /** Pages of a paged file (PDF) one worker step extracts before the rest continues in a follow-up message. */
  ingestStepMaxPages: () => positiveInt(ENV.ingestStepMaxPages, 1_000),
  /** Turns the FILE URL guard off entirely; for tests written before `fileUrlAllowedNetworks`. */
  allowPrivateFileUrls: () => process.env[ENV.allowPrivateFileUrls] === "true",
  /**
   * Lets an OPENAI_COMPATIBLE chat model live on a private or loopback address. Only the local
   * stack sets it: it runs on the user's own machine, where a model server on 127.0.0.1 is the
   * point. Deployed, a namespace owner's base URL must never reach the VPC, the metadata service
   * or the Lambda runtime API on 127.0.0.1:9001.
   */
  allowPrivateModelUrls: () => process.env[ENV.allowPrivateModelUrls] === "true",
  /** Addresses or CIDR networks FILE payloads may reach although they are not public (comma-separated). */
  fileUrlAllowedNetworks: () =>
    (process.env[ENV.fileUrlAllowedNetworks] ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ""),
  maxReceiveCount: () => positiveInt(ENV.maxReceiveCount, 5),
  /** Chunks embedded per worker invocation before the rest continues in a follow-up message. */
  ingestStepMaxChunks: () => positiveInt(ENV.ingestStepMaxChunks, 20_000),
  /** Vector indexes past which no new (namespace, tenant) partition is admitted; see vector-store/quota.ts. */
  vectorIndexCeiling: () => positiveInt(ENV.vectorIndexCeiling, 9_500),
  /**
   * Memory the documents one worker process prepares at once may hold between them: the function's
   * memory less what the runtime, the service's code and off-heap buffers take (lib/node-options.ts
   * gives V8 the same limit).
   */
  ingestMemoryBudgetMb: () => positiveInt(ENV.ingestMemoryBudgetMb, Math.max(256, functionMemoryMb() - 450)),
  /** The heap cap of an extraction thread (extraction/isolation.ts); set lower only to exercise the cap. */
  extractionHeapMb: () => positiveInt(ENV.extractionHeapMb, 768),
  /**
   * The first back-off step of a chat model's retries (each retry doubles it): someone waits for the
   * answer, so 500 ms. Tests of the retries through the HTTP API set it lower rather than sleep.
   */
  chatRetryBaseDelayMs: () => nonNegativeInt(ENV.chatRetryBaseDelayMs, 500),
  /**
   * Test-only: the instant (epoch ms) hosted pages' per-minute visit counters count at, so a test of
   * the 31st request in a minute cannot see the minute roll over. Never set by the stack.
   */
  hostedRateClockMs: (): number | undefined => (process.env[ENV.hostedRateClockMs] ? nonNegativeInt(ENV.hostedRateClockMs, 0) : undefined),
  /**
   * The process's resident memory past which the extraction thread at work is terminated: nine
   * tenths of the function's memory, so the thread goes before Lambda ends the whole process.
   */
  extractionRssLimitMb: () => positiveInt(ENV.extractionRssLimitMb, Math.floor(functionMemoryMb() * 0.9)),
};
