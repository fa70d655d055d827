import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { PutInputVector, S3VectorsClient } from "@aws-sdk/client-s3vectors";
import { config } from "../platform/env.ts";
import { logger } from "../platform/logger.ts";
import { observed } from "../platform/sdk-observer.ts";
import { lazyImport } from "../platform/lazy-import.ts";
import { toS3VectorsFilter } from "./s3-vectors-filter.ts";
import { bm25ScoresOf, type QueryText, type TextSearchConfiguration, withWireFields, type WireOutput } from "./s3-vectors-wire.ts";
import { clampTopK, type StoredVector, type VectorMatch, type VectorQueryOptions, type VectorRecord, type VectorStore } from "./types.ts";
import { type VectorPartition } from "../domain/partitions.ts";
import { type MetadataValue } from "../domain/metadata-filter.ts";
import {
  NON_FILTERABLE_METADATA_KEYS,
  recordViolation,
  S3_VECTORS_LIMITS,
  storedMetadata,
  TEXT_METADATA_KEY,
  VectorQuotaError,
  VectorValidationError,
  vectorViolation,
} from "./limits.ts";

/**
 * The deployed store: Amazon S3 Vectors, one vector index per (namespace, tenant) partition, so
 * isolation is structural rather than a filter someone could forget. Indexes are created on the
 * first write to a partition. Chunk text rides along as non-filterable metadata `text`, which is
 * also the index's full-text-searchable field: indexes are created in `ENHANCED` mode with a text
 * search configuration for it, so `queryText` is S3 Vectors' own BM25 (`queryTexts`) and nothing
 * is loaded into the function. Indexes created before that are upgraded by
 * `npm run vector-indexes -- upgrade` (scripts/vector-indexes.ts).
 *
 * A partition's index name is a hash, from which the tenant cannot be recovered, so each namespace
 * also has a small registry index (`r-<hash>`) holding one dimension-1 vector per partition, keyed by
 * tenant. `listPartitions` reads it, so cascades can find every tenant without another database.
 */

export const PUT_BATCH = S3_VECTORS_LIMITS.maxVectorsPerPut;
export const DELETE_BATCH = S3_VECTORS_LIMITS.maxKeysPerDelete;
const LIST_PAGE = S3_VECTORS_LIMITS.maxListVectorsPage;
// Batches are cut well below the request payload limit: their size is an estimate.
const PUT_PAYLOAD_BUDGET = Math.floor(S3_VECTORS_LIMITS.maxRequestBytes * 0.8);
const NULL_TENANT_KEY = "-";
/** The partition indexes' full-text field: the chunk text, with the standard analyzer. */
export const TEXT_SEARCH_CONFIGURATIONS: TextSearchConfiguration[] = [{ metadataKey: TEXT_METADATA_KEY }];
/** Filters apply before the search in this mode, and full-text search needs it. */
export const INDEX_MODE = "ENHANCED";
/** How long a count of the bucket's indexes is trusted (listing 10,000 indexes takes 20 calls). */
const INDEX_COUNT_TTL_MS = 60_000;

/** The S3 Vectors SDK module; only its types are imported statically (see `loadS3VectorsSdk`). */
export type S3VectorsSdk = typeof import("@aws-sdk/client-s3vectors");

/** Only the S3 Vectors backend (deployed workers, reconciler and search) needs the SDK, and not at cold start. */
const loadS3VectorsSdk = lazyImport<S3VectorsSdk>(() => import("@aws-sdk/client-s3vectors"));

export interface S3VectorsStoreOptions {
  /** Injected in tests; by default one client per store, created on first use. */
  client?: S3VectorsClient;
  vectorBucketName: string;
  /** Attempts per request on throttling or service faults, on top of the SDK's own retries. */
  maxAttempts?: number;
  retryBaseDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Injected in tests; Date.now by default. */
  now?: () => number;
}

function hex40(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex").slice(0, 40);
}

/**
 * `p-` + 40 hex characters: within S3 Vectors' index-name rules (3–63 of lowercase letters, digits,
 * hyphens and dots) whatever the ids contain. The NUL separator keeps ("a", "bc") and ("ab", "c")
 * apart, and no tenant maps to the same name as no tenant, since tenant ids are never empty.
 */
export function partitionIndexName(namespaceId: string, tenantId: string | null): string {
  return `p-${hex40(`${namespaceId}\u0000${tenantId ?? ""}`)}`;
}

export function registryIndexName(namespaceId: string): string {
  return `r-${hex40(namespaceId)}`;
}

function registryKey(tenantId: string | null): string {
  // Vector keys cannot be empty; "-" is not a valid tenant id, so it cannot collide.
  return tenantId === null ? NULL_TENANT_KEY : `t:${tenantId}`;
}

function tenantFromRegistryKey(key: string): string | null {
  return key === NULL_TENANT_KEY ? null : key.slice(2);
}

function errorName(error: unknown): string {
  return (error as { name?: string } | null)?.name ?? "";
}

const isNotFound = (error: unknown) => errorName(error) === "NotFoundException";
const isConflict = (error: unknown) => errorName(error) === "ConflictException";

const RETRYABLE = new Set([
  "ThrottlingException",
  "TooManyRequestsException",
  "ServiceUnavailableException",
  "InternalServerException",
  "RequestTimeoutException",
  "SlowDown",
]);

function isRetryable(error: unknown): boolean {
  if (RETRYABLE.has(errorName(error))) return true;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return status === 429 || (status !== undefined && status >= 500);
}

/** Rough JSON size of one vector in a PutVectors body: numbers print as up to ~20 characters. */
function estimatedBytes(record: VectorRecord): number {
  return record.vector.length * 20 + Buffer.byteLength(record.text) * 1.2 + JSON.stringify(record.metadata).length + record.key.length + 64;
}

export class S3VectorsStore implements VectorStore {
  private client: S3VectorsClient | undefined;
  private readonly bucket: string;
  private readonly maxAttempts: number;
  private readonly retryBaseDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly now: () => number;
  private indexCount: { count: number; at: number } | undefined;

  constructor(options: S3VectorsStoreOptions) {
    this.client = options.client;
    this.bucket = options.vectorBucketName;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 200;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  /** The SDK and the client, loading the one and creating the other on first use. */
  private async connect(): Promise<{ sdk: S3VectorsSdk; client: S3VectorsClient }> {
    const sdk = await loadS3VectorsSdk();
    this.client ??= observed(new sdk.S3VectorsClient({}));
    return { sdk, client: this.client };
  }

  async upsert(partition: VectorPartition, records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    for (const record of records) {
      if (record.vector.length !== partition.dimension) {
        throw new Error(`vector for ${record.key} has ${record.vector.length} dimensions, the partition ${partition.dimension}`);
      }
    }
    // Refused here exactly as the service would refuse it, without a round trip (and so that the
    // embedded store, which runs the same check, fails local tests the same way).
    for (const record of records) {
      const violation = recordViolation(record);
      if (violation) throw new VectorValidationError(violation);
    }
    const { sdk, client } = await this.connect();
    const indexName = partitionIndexName(partition.namespaceId, partition.tenantId);
    for (const batch of this.putBatches(records)) {
      const vectors: PutInputVector[] = batch.map((record) => ({
        key: record.key,
        data: { float32: Array.from(record.vector) },
        metadata: storedMetadata(record),
      }));
      const put = () => this.retrying(() => client.send(new sdk.PutVectorsCommand({ vectorBucketName: this.bucket, indexName, vectors })));
      try {
        await put();
      } catch (error) {
        if (!isNotFound(error)) throw error;
        // First write to this partition (or it was dropped): create the index, then write again.
        await this.createPartition(partition, indexName);
        await put();
      }
    }
  }

  async getVectors(partition: VectorPartition, keys: string[]): Promise<Map<string, StoredVector>> {
    const found = new Map<string, StoredVector>();
    if (keys.length === 0) return found;
    const { sdk, client } = await this.connect();
    const indexName = partitionIndexName(partition.namespaceId, partition.tenantId);
    for (let start = 0; start < keys.length; start += S3_VECTORS_LIMITS.maxKeysPerGet) {
      const batch = keys.slice(start, start + S3_VECTORS_LIMITS.maxKeysPerGet);
      try {
        const result = await this.retrying(() =>
          client.send(new sdk.GetVectorsCommand({ vectorBucketName: this.bucket, indexName, keys: batch, returnData: true, returnMetadata: true })),
        );
        for (const vector of result.vectors ?? []) {
          const text = (vector.metadata as Record<string, unknown> | undefined)?.[TEXT_METADATA_KEY];
          if (vector.key && vector.data?.float32 && typeof text === "string") found.set(vector.key, { vector: Float32Array.from(vector.data.float32), text });
        }
      } catch (error) {
        // No index: nothing was written to this partition, so there is nothing to reuse.
        if (isNotFound(error)) return found;
        throw error;
      }
    }
    return found;
  }

  async deleteKeys(partition: VectorPartition, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const { sdk, client } = await this.connect();
    const indexName = partitionIndexName(partition.namespaceId, partition.tenantId);
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      const batch = keys.slice(start, start + DELETE_BATCH);
      try {
        await this.retrying(() => client.send(new sdk.DeleteVectorsCommand({ vectorBucketName: this.bucket, indexName, keys: batch })));
      } catch (error) {
        // No index means nothing was ever written (or it was dropped): nothing to delete.
        if (isNotFound(error)) return;
        throw error;
      }
    }
  }

  async query(partition: VectorPartition, vector: Float32Array, options: VectorQueryOptions): Promise<VectorMatch[]> {
    if (vector.length !== partition.dimension) {
      throw new Error(`query vector has ${vector.length} dimensions, the partition ${partition.dimension}`);
    }
    const violation = vectorViolation(vector);
    if (violation) throw new VectorValidationError(`Invalid query vector: ${violation}`);
    const topK = clampTopK(options.topK);
    if (topK === 0) return [];
    const { sdk, client } = await this.connect();
    const indexName = partitionIndexName(partition.namespaceId, partition.tenantId);
    const filter = toS3VectorsFilter(options.filter);
    let response;
    try {
      response = await this.retrying(() =>
        client.send(
          new sdk.QueryVectorsCommand({
            vectorBucketName: this.bucket,
            indexName,
            topK,
            queryVector: { float32: Array.from(vector) },
            ...(filter ? { filter } : {}),
            returnMetadata: true,
            returnDistance: true,
          }),
        ),
      );
    } catch (error) {
      // A partition nothing was written to has no index yet, and so no matches.
      if (isNotFound(error)) return [];
      throw error;
    }
    const matches: VectorMatch[] = [];
    for (const found of response.vectors ?? []) {
      if (!found.key) continue;
      const { [TEXT_METADATA_KEY]: text, ...metadata } = (found.metadata ?? {}) as Record<string, unknown>;
      // Cosine distance is 1 − cos, so (1 + cos) / 2 = 1 − distance / 2: the embedded store's scale.
      const score = Math.min(1, Math.max(0, 1 - (found.distance ?? 1) / 2));
      matches.push({ key: found.key, score, text: typeof text === "string" ? text : "", metadata: metadata as Record<string, MetadataValue> });
    }
    // The service returns nearest first; sorting again keeps the contract even if it ever did not.
    return matches.sort((a, b) => b.score - a.score);
  }

  /**
   * S3 Vectors' full-text search: `queryTexts` on the chunk text and no `queryVector`, so the
   * service ranks by BM25 alone. Scores are the service's BM25 scores; an answer without them is
   * ranked as returned.
   */
  async queryText(partition: VectorPartition, text: string, options: VectorQueryOptions): Promise<VectorMatch[]> {
    const topK = clampTopK(options.topK);
    if (topK === 0 || text.trim() === "") return [];
    const { sdk, client } = await this.connect();
    const indexName = partitionIndexName(partition.namespaceId, partition.tenantId);
    const filter = toS3VectorsFilter(options.filter);
    const queryTexts: QueryText[] = [{ metadataKey: TEXT_METADATA_KEY, text }];
    let response: WireOutput & { vectors?: { key?: string; metadata?: unknown }[] };
    try {
      response = await this.retrying(() =>
        client.send(
          withWireFields(
            // The SDK's type wants a queryVector; a text-only query leaves it out on purpose.
            new sdk.QueryVectorsCommand({ vectorBucketName: this.bucket, indexName, topK, ...(filter ? { filter } : {}), returnMetadata: true } as never),
            { queryTexts, returnScores: true },
          ),
        ),
      );
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
    const scores = bm25ScoresOf(response);
    const found = response.vectors ?? [];
    const matches: VectorMatch[] = [];
    found.forEach((vector, rank) => {
      if (!vector.key) return;
      const { [TEXT_METADATA_KEY]: chunkText, ...metadata } = (vector.metadata ?? {}) as Record<string, unknown>;
      const score = scores.get(vector.key) ?? (found.length - rank) / found.length;
      matches.push({ key: vector.key, score, text: typeof chunkText === "string" ? chunkText : "", metadata: metadata as Record<string, MetadataValue> });
    });
    return matches.sort((a, b) => b.score - a.score);
  }

  async *listKeys(partition: VectorPartition): AsyncIterable<string[]> {
    yield* this.listIndexKeys(partitionIndexName(partition.namespaceId, partition.tenantId));
  }

  async dropPartition(partition: VectorPartition): Promise<void> {
    const { sdk, client } = await this.connect();
    const indexName = partitionIndexName(partition.namespaceId, partition.tenantId);
    await this.ignoringNotFound(() =>
      this.retrying(() => client.send(new sdk.DeleteIndexCommand({ vectorBucketName: this.bucket, indexName }))),
    );
    const registry = registryIndexName(partition.namespaceId);
    const key = registryKey(partition.tenantId);
    await this.ignoringNotFound(() =>
      this.retrying(() => client.send(new sdk.DeleteVectorsCommand({ vectorBucketName: this.bucket, indexName: registry, keys: [key] }))),
    );
    this.indexCount = undefined;
    // The registry goes with the namespace's last partition, so deleted namespaces leave no index
    // behind (indexes count against a per-bucket quota).
    const remaining = await this.ignoringNotFound(() =>
      this.retrying(() =>
        client.send(new sdk.ListVectorsCommand({ vectorBucketName: this.bucket, indexName: registry, maxResults: 1 })),
      ),
    );
    if (remaining && (remaining.vectors ?? []).length === 0) {
      await this.ignoringNotFound(() =>
        this.retrying(() => client.send(new sdk.DeleteIndexCommand({ vectorBucketName: this.bucket, indexName: registry }))),
      );
    }
  }

  /**
   * Pages through ListIndexes. The count is kept for a minute (and counts this store's own
   * creations meanwhile): admission checks run on every ingest-job request, and the ceiling they
   * check against leaves room for what other writers create within that minute.
   */
  async countIndexes(options: { fresh?: boolean } = {}): Promise<number> {
    if (!options.fresh && this.indexCount && this.now() - this.indexCount.at < INDEX_COUNT_TTL_MS) return this.indexCount.count;
    let count = 0;
    for await (const names of this.indexNamePages()) count += names.length;
    this.indexCount = { count, at: this.now() };
    return count;
  }

  /**
   * Deletes every index of the bucket (and so every vector), for an operator emptying a stage's
   * bucket before `cdk destroy`: CloudFormation cannot delete a vector bucket that holds indexes.
   */
  async deleteAllIndexes(): Promise<number> {
    const { sdk, client } = await this.connect();
    let deleted = 0;
    // Listed again after each page is deleted: deleting while paging would skip entries.
    for (;;) {
      const page = (await this.indexNamePages().next()).value as string[] | undefined;
      if (!page || page.length === 0) break;
      for (const indexName of page) {
        await this.ignoringNotFound(() => this.retrying(() => client.send(new sdk.DeleteIndexCommand({ vectorBucketName: this.bucket, indexName }))));
        deleted += 1;
      }
    }
    this.indexCount = undefined;
    return deleted;
  }

  /**
   * Rebuilds every partition index that cannot answer full-text queries (created before they
   * existed: not `ENHANCED`, or without the text field's configuration) as one that can, under the
   * same name: its vectors are copied to a holding index `u-…`, the old index is deleted and
   * created again with the current settings, and the vectors copied back. Safe to run again after a
   * crash at any step (the holding index is the copy of record while it exists). Writes made to a
   * partition while it is rebuilt can be lost: run it while ingestion is paused.
   */
  async upgradeIndexes(log: (line: string) => void = () => {}): Promise<{ upgraded: number; current: number }> {
    const { sdk, client } = await this.connect();
    const names: string[] = [];
    for await (const page of this.indexNamePages()) names.push(...page);
    let upgraded = 0;
    let current = 0;
    for (const name of names.filter((candidate) => candidate.startsWith("p-")).sort()) {
      const holding = `u-${name.slice(2)}`;
      const found = (await this.ignoringNotFound(() =>
        this.retrying(() => client.send(withWireFields(new sdk.GetIndexCommand({ vectorBucketName: this.bucket, indexName: name }), {}))),
      )) as (WireOutput & { index?: { dimension?: number } }) | undefined;
      const described = found?.$wire?.index as { indexMode?: string; dimension?: number; metadataConfiguration?: { textSearchConfigurations?: { metadataKey?: string }[] } } | undefined;
      const searchable = described?.metadataConfiguration?.textSearchConfigurations?.some((entry) => entry.metadataKey === TEXT_METADATA_KEY) ?? false;
      if (described && described.indexMode === INDEX_MODE && searchable && !names.includes(holding)) {
        current += 1;
        continue;
      }
      const dimension = described?.dimension ?? found?.index?.dimension;
      if (described && dimension) {
        await this.createIndex(holding, dimension, "cosine", [...NON_FILTERABLE_METADATA_KEYS], "-", true);
        const copied = await this.copyVectors(name, holding);
        await this.retrying(() => client.send(new sdk.DeleteIndexCommand({ vectorBucketName: this.bucket, indexName: name })));
        log(`${name}: ${copied} vectors held in ${holding}`);
      }
      // From here the holding index is the copy of record (also when resuming after a crash).
      const held = (await this.ignoringNotFound(() => this.retrying(() => client.send(new sdk.GetIndexCommand({ vectorBucketName: this.bucket, indexName: holding })))))?.index;
      if (!held?.dimension) continue;
      await this.createIndex(name, held.dimension, "cosine", [...NON_FILTERABLE_METADATA_KEYS], "-", true);
      const restored = await this.copyVectors(holding, name);
      await this.retrying(() => client.send(new sdk.DeleteIndexCommand({ vectorBucketName: this.bucket, indexName: holding })));
      log(`${name}: rebuilt for full-text search with ${restored} vectors`);
      upgraded += 1;
    }
    this.indexCount = undefined;
    return { upgraded, current };
  }

  /** Copies every vector (data and metadata) of one index into another; returns how many. */
  private async copyVectors(from: string, to: string): Promise<number> {
    const { sdk, client } = await this.connect();
    let nextToken: string | undefined;
    let copied = 0;
    do {
      const token = nextToken;
      const page = await this.retrying(() =>
        client.send(
          new sdk.ListVectorsCommand({
            vectorBucketName: this.bucket,
            indexName: from,
            // Pages small enough to write back in one PutVectors within its payload limit.
            maxResults: 200,
            returnData: true,
            returnMetadata: true,
            ...(token ? { nextToken: token } : {}),
          }),
        ),
      );
      const vectors: PutInputVector[] = (page.vectors ?? []).flatMap((vector) =>
        vector.key && vector.data?.float32 ? [{ key: vector.key, data: { float32: vector.data.float32 }, metadata: vector.metadata }] : [],
      );
      if (vectors.length > 0) await this.retrying(() => client.send(new sdk.PutVectorsCommand({ vectorBucketName: this.bucket, indexName: to, vectors })));
      copied += vectors.length;
      nextToken = page.nextToken;
    } while (nextToken);
    return copied;
  }

  private async *indexNamePages(): AsyncGenerator<string[]> {
    const { sdk, client } = await this.connect();
    let nextToken: string | undefined;
    do {
      const token = nextToken;
      const page = await this.retrying(() =>
        client.send(
          new sdk.ListIndexesCommand({
            vectorBucketName: this.bucket,
            maxResults: S3_VECTORS_LIMITS.maxListIndexesPage,
            ...(token ? { nextToken: token } : {}),
          }),
        ),
      );
      yield (page.indexes ?? []).flatMap((index) => (index.indexName ? [index.indexName] : []));
      nextToken = page.nextToken;
    } while (nextToken);
  }

  async indexesNeededFor(partition: Pick<VectorPartition, "namespaceId" | "tenantId">): Promise<number> {
    if (await this.indexExists(partitionIndexName(partition.namespaceId, partition.tenantId))) return 0;
    return (await this.indexExists(registryIndexName(partition.namespaceId))) ? 1 : 2;
  }

  private async indexExists(indexName: string): Promise<boolean> {
    const { sdk, client } = await this.connect();
    const found = await this.ignoringNotFound(() =>
      this.retrying(() => client.send(new sdk.GetIndexCommand({ vectorBucketName: this.bucket, indexName }))),
    );
    return found !== undefined;
  }

  async listPartitions(namespaceId: string): Promise<{ tenantId: string | null }[]> {
    const partitions: { tenantId: string | null }[] = [];
    for await (const keys of this.listIndexKeys(registryIndexName(namespaceId))) {
      for (const key of keys) partitions.push({ tenantId: tenantFromRegistryKey(key) });
    }
    return partitions;
  }

  /**
   * Registers the partition before creating its index: a crash in between leaves a registry entry
   * without an index, which cascades tolerate, never an index the registry does not know.
   */
  private async createPartition(partition: VectorPartition, indexName: string): Promise<void> {
    const { sdk, client } = await this.connect();
    const registry = registryIndexName(partition.namespaceId);
    await this.createIndex(registry, 1, "euclidean", [], partition.namespaceId, false);
    await this.retrying(() =>
      client.send(
        new sdk.PutVectorsCommand({
          vectorBucketName: this.bucket,
          indexName: registry,
          vectors: [{ key: registryKey(partition.tenantId), data: { float32: [1] }, metadata: { namespaceId: partition.namespaceId } }],
        }),
      ),
    );
    await this.createIndex(indexName, partition.dimension, "cosine", [...NON_FILTERABLE_METADATA_KEYS], partition.namespaceId, true);
    logger.info("created vector index", { indexName, namespaceId: partition.namespaceId, dimension: partition.dimension });
  }

  private async createIndex(
    indexName: string,
    dimension: number,
    distanceMetric: "cosine" | "euclidean",
    nonFilterableMetadataKeys: string[],
    namespaceId: string,
    fullText: boolean,
  ): Promise<void> {
    const { sdk, client } = await this.connect();
    try {
      await this.retrying(() => {
        const command = new sdk.CreateIndexCommand({
          vectorBucketName: this.bucket,
          indexName,
          dataType: "float32",
          dimension,
          distanceMetric,
          ...(nonFilterableMetadataKeys.length > 0 ? { metadataConfiguration: { nonFilterableMetadataKeys } } : {}),
        });
        return client.send(
          fullText ? withWireFields(command, { indexMode: INDEX_MODE, metadataConfiguration: { textSearchConfigurations: TEXT_SEARCH_CONFIGURATIONS } }) : command,
        );
      });
      if (this.indexCount) this.indexCount.count += 1;
    } catch (error) {
      // Another writer created it first: same name, same settings, fine.
      if (isConflict(error)) return;
      if (errorName(error) === "ServiceQuotaExceededException") throw new VectorQuotaError(S3_VECTORS_LIMITS.maxIndexesPerBucket, namespaceId);
      throw error;
    }
  }

  private async *listIndexKeys(indexName: string): AsyncIterable<string[]> {
    const { sdk, client } = await this.connect();
    let nextToken: string | undefined;
    do {
      const token = nextToken;
      let page;
      try {
        page = await this.retrying(() =>
          client.send(
            new sdk.ListVectorsCommand({ vectorBucketName: this.bucket, indexName, maxResults: LIST_PAGE, ...(token ? { nextToken: token } : {}) }),
          ),
        );
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      const keys = (page.vectors ?? []).flatMap((vector) => (vector.key ? [vector.key] : []));
      if (keys.length > 0) yield keys;
      nextToken = page.nextToken;
    } while (nextToken);
  }

  /** Splits by the per-call vector limit and by an estimate of the payload size. */
  private *putBatches(records: VectorRecord[]): Generator<VectorRecord[]> {
    let batch: VectorRecord[] = [];
    let bytes = 0;
    for (const record of records) {
      const size = estimatedBytes(record);
      if (batch.length > 0 && (batch.length >= PUT_BATCH || bytes + size > PUT_PAYLOAD_BUDGET)) {
        yield batch;
        batch = [];
        bytes = 0;
      }
      batch.push(record);
      bytes += size;
    }
    if (batch.length > 0) yield batch;
  }

  private async ignoringNotFound<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /**
   * Retries throttling and service faults with exponential backoff and jitter. Bulk ingestion hits
   * the per-index write rate, and the SDK's default three attempts give up too soon for that.
   */
  private async retrying<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (attempt >= this.maxAttempts || !isRetryable(error)) throw error;
        const ceiling = Math.min(this.maxRetryDelayMs, this.retryBaseDelayMs * 2 ** (attempt - 1));
        logger.warn("vector store request will be retried", { attempt, error: errorName(error) });
        await sleep(ceiling / 2 + Math.random() * (ceiling / 2));
      }
    }
  }
}

/** The deployment's store (vector-store/registry.ts); it imports the S3 Vectors SDK on its first request. */
export function createVectorStore(): VectorStore {
  return new S3VectorsStore({ vectorBucketName: config.vectorBucketName() });
}
