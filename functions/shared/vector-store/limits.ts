import type { MetadataValue } from "../domain/metadata-filter.ts";
import { MAX_TOP_K, type VectorRecord } from "./types.ts";

/**
 * Amazon S3 Vectors' documented limits ("Limitations and restrictions" in the S3 User Guide and the
 * API reference), written down once. The S3 Vectors adapter checks records against them before it
 * sends anything, and the embedded store enforces the same ones with the same errors, so a local
 * test that breaks a limit fails exactly as the deployed service would.
 */
/**
 * Vector buckets the deployed stack hashes partitions over (the CDK sets it, the operator's CLI
 * defaults to it): 128 × S3 Vectors' 10,000 indexes per bucket, so no tenant count is a ceiling in
 * practice (s3-vectors.ts). Here rather than in lib/ so the CLI need not load aws-cdk-lib.
 */
export const VECTOR_BUCKET_SLOTS = 128;

export const S3_VECTORS_LIMITS = {
  /** CreateIndex `dimension`: 1 to 4,096. */
  minDimension: 1,
  maxDimension: 4096,
  /** Vector keys: 1 to 1,024 characters. */
  maxKeyLength: 1024,
  /** Every metadata key of a vector, filterable and non-filterable alike. */
  maxMetadataKeys: 50,
  /** Filterable metadata per vector. */
  maxFilterableMetadataBytes: 2048,
  /** Filterable plus non-filterable metadata per vector. */
  maxTotalMetadataBytes: 40 * 1024,
  /** `metadataConfiguration.nonFilterableMetadataKeys` of an index. */
  maxNonFilterableKeys: 10,
  /** Vectors per PutVectors and per DeleteVectors call. */
  maxVectorsPerPut: 500,
  maxKeysPerDelete: 500,
  /** Keys per GetVectors call. */
  maxKeysPerGet: 100,
  /** QueryVectors `topK` (early preview documentation said 30; the current limit is 100). */
  maxTopK: MAX_TOP_K,
  /** Vectors per ListVectors page and indexes per ListIndexes page. */
  maxListVectorsPage: 1000,
  maxListIndexesPage: 500,
  /** Request payload size of any call. */
  maxRequestBytes: 20 * 1024 * 1024,
  /** Vector indexes per vector bucket; CreateIndex answers ServiceQuotaExceededException past it. */
  maxIndexesPerBucket: 10_000,
} as const;

/** The chunk text rides along as this non-filterable metadata key (declared when an index is created). */
export const TEXT_METADATA_KEY = "text";
export const NON_FILTERABLE_METADATA_KEYS: readonly string[] = [TEXT_METADATA_KEY];

const encoder = new TextEncoder();

function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/**
 * Bytes a set of metadata entries counts against S3 Vectors' size limits. The service does not
 * document its accounting, so this errs high: the compact JSON form (keys, quotes and separators
 * included, in UTF-8), with every number counted as at least the 8 bytes of a double. That is never
 * less than the raw keys and values however they are encoded.
 */
export function metadataBytes(metadata: Record<string, MetadataValue>): number {
  let bytes = 2; // {}
  let first = true;
  for (const [key, value] of Object.entries(metadata)) {
    if (!first) bytes += 1; // ,
    first = false;
    bytes += utf8Bytes(JSON.stringify(key)) + 1; // "key":
    bytes += valueBytes(value);
  }
  return bytes;
}

function valueBytes(value: MetadataValue): number {
  if (typeof value === "number") return Math.max(8, JSON.stringify(value).length);
  if (typeof value === "boolean") return String(value).length;
  if (typeof value === "string") return utf8Bytes(JSON.stringify(value));
  return 2 + value.reduce((sum, item, index) => sum + (index > 0 ? 1 : 0) + utf8Bytes(JSON.stringify(item)), 0);
}

/** The part of a vector's metadata that counts as filterable. */
export function filterableMetadataBytes(metadata: Record<string, MetadataValue>): number {
  const filterable: Record<string, MetadataValue> = {};
  for (const [key, value] of Object.entries(metadata)) if (!NON_FILTERABLE_METADATA_KEYS.includes(key)) filterable[key] = value;
  return metadataBytes(filterable);
}

/**
 * Why S3 Vectors would refuse this metadata for one vector, in the service's words, or undefined.
 * `metadata` is everything the vector carries, non-filterable keys included.
 */
export function metadataViolation(metadata: Record<string, MetadataValue>): string | undefined {
  const keys = Object.keys(metadata).length;
  if (keys > S3_VECTORS_LIMITS.maxMetadataKeys) {
    return `Metadata must have at most ${S3_VECTORS_LIMITS.maxMetadataKeys} keys, it has ${keys}`;
  }
  const filterable = filterableMetadataBytes(metadata);
  if (filterable > S3_VECTORS_LIMITS.maxFilterableMetadataBytes) {
    return `Filterable metadata must have at most ${S3_VECTORS_LIMITS.maxFilterableMetadataBytes} bytes, it has ${filterable}`;
  }
  const total = metadataBytes(metadata);
  if (total > S3_VECTORS_LIMITS.maxTotalMetadataBytes) {
    return `Total metadata must have at most ${S3_VECTORS_LIMITS.maxTotalMetadataBytes} bytes, it has ${total}`;
  }
  return undefined;
}

/**
 * Why S3 Vectors would refuse this vector for a cosine index, or undefined: it documents that
 * vectors must hold finite numbers only and that cosine indexes refuse zero vectors (the cosine of
 * a zero vector is undefined).
 */
export function vectorViolation(vector: Float32Array): string | undefined {
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i]!)) return "Vector data must contain only finite float32 values";
  }
  return isZeroVector(vector) ? "Zero vectors are not allowed for the cosine distance metric" : undefined;
}

export function isZeroVector(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) return false;
  return true;
}

/**
 * The error S3 Vectors answers a request it refuses with (HTTP 400). The embedded store throws it
 * for the same requests, and the adapter throws it before sending one it knows will be refused.
 */
export class VectorValidationError extends Error {
  override readonly name = "ValidationException";
}

/**
 * A partition's index could not be created because the bucket holds as many indexes as it may
 * (S3 Vectors answers CreateIndex with ServiceQuotaExceededException); the message says so plainly.
 */
export class VectorQuotaError extends Error {
  override readonly name = "ServiceQuotaExceededException";

  constructor(quota: number, namespaceId: string) {
    super(
      `the vector bucket holds its maximum of ${quota} indexes, so no index could be created for this tenant of namespace ` +
        `${namespaceId}; delete unused namespaces or tenants, or see "Limits" in the README for more room`,
    );
  }
}

export function isVectorValidationError(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === "ValidationException";
}

/**
 * The metadata a record is stored with: its own, then the chunk text under `text`, written last so
 * a user field of that name cannot replace it.
 */
export function storedMetadata(record: VectorRecord): Record<string, MetadataValue> {
  return { ...record.metadata, [TEXT_METADATA_KEY]: record.text };
}

/** The check S3 Vectors performs on each record of a PutVectors call, in its words for that record. */
export function recordViolation(record: VectorRecord): string | undefined {
  const reason =
    record.key.length < 1 || record.key.length > S3_VECTORS_LIMITS.maxKeyLength
      ? `Key must be 1 to ${S3_VECTORS_LIMITS.maxKeyLength} characters`
      : (vectorViolation(record.vector) ?? metadataViolation(storedMetadata(record)));
  return reason === undefined ? undefined : `Invalid record for key '${record.key}': ${reason}`;
}
