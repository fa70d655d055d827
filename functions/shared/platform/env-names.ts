/**
 * Names of the environment variables the functions read. Shared with `lib/` so the CDK stack and
 * the local stack set exactly what the functions expect.
 */
export const ENV = {
  tableName: "TABLE_NAME",
  bucketName: "BUCKET_NAME",
  ingestQueueUrl: "INGEST_QUEUE_URL",
  deleteQueueUrl: "DELETE_QUEUE_URL",
  mailQueueUrl: "MAIL_QUEUE_URL",
  stage: "STAGE",
  defaultEmbeddingProvider: "DEFAULT_EMBEDDING_PROVIDER",
  vectorStoreBackend: "VECTOR_STORE_BACKEND",
  vectorBucketName: "VECTOR_BUCKET_NAME",
  vectorBucketSlots: "VECTOR_BUCKET_SLOTS",
  uploadUrlTtlSeconds: "UPLOAD_URL_TTL_SECONDS",
  downloadUrlTtlSeconds: "DOWNLOAD_URL_TTL_SECONDS",
  maxUploadBytes: "MAX_UPLOAD_BYTES",
  allowPrivateFileUrls: "ALLOW_PRIVATE_FILE_URLS",
  fileUrlAllowedNetworks: "FILE_URL_ALLOWED_NETWORKS",
  allowPrivateModelUrls: "ALLOW_PRIVATE_MODEL_URLS",
  maxReceiveCount: "MAX_RECEIVE_COUNT",
  ingestStepMaxChunks: "INGEST_STEP_MAX_CHUNKS",
  ingestStepMaxPages: "INGEST_STEP_MAX_PAGES",
  vectorIndexCeiling: "VECTOR_INDEX_CEILING",
  ingestMemoryBudgetMb: "INGEST_MEMORY_BUDGET_MB",
  extractionHeapMb: "EXTRACTION_HEAP_MB",
  extractionRssLimitMb: "EXTRACTION_RSS_LIMIT_MB",
  defaultReranker: "DEFAULT_RERANKER",
  rerankerBaseUrls: "RERANKER_BASE_URLS",
  defaultLlm: "DEFAULT_LLM",
  defaultChatModel: "DEFAULT_CHAT_MODEL",
  chatModels: "CHAT_MODELS",
  awsRegion: "AWS_REGION",
  emailBackend: "EMAIL_BACKEND",
  emailSender: "EMAIL_SENDER",
  emailOutboxDir: "EMAIL_OUTBOX_DIR",
  chatRetryBaseDelayMs: "CHAT_RETRY_BASE_DELAY_MS",
  hostedRateClockMs: "HOSTED_RATE_CLOCK_MS",
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];
