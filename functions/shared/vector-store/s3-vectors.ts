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
 * No tenant ceiling: with `bucketSlots` above 1 (VECTOR_BUCKET_SLOTS; the CDK sets 128) indexes are
 * spread over that many vector buckets by their name's hash (slot 0 is the stack's bucket, slot n
 * the bucket named `<stack bucket>-<n>`, created on first use), each holding up to S3 Vectors'
 * 10,000 indexes. An index not found in its bucket is looked for in the stack's bucket, where every
 * index lived before slots: `vector-indexes upgrade` moves them to theirs.
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
const TEXT_SEARCH_CONFIGURATIONS: TextSearchConfiguration[] = [{ metadataKey: TEXT_METADATA_KEY }];
/** Filters apply before the search in this mode, and full-text search needs it. */
const INDEX_MODE = "ENHANCED";
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
  /** Vector buckets indexes are hashed over; 1 (the default): `vectorBucketName` only. */
  bucketSlots?: number;
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
  private readonly slots: number;
  private readonly indexCounts = new Map<string, { count: number; at: number }>();

  constructor(options: S3VectorsStoreOptions) {
    this.client = options.client;
    this.bucket = options.vectorBucketName;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 200;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.now = options.now ?? Date.now;
    this.slots = Math.max(1, Math.floor(options.bucketSlots ?? 1));
    if (this.slots > 1 && `${this.bucket}-${this.slots - 1}`.length > 63) {
      throw new Error(`vector bucket name ${this.bucket} is too long for ${this.slots} slots (bucket names have at most 63 characters)`);
    }
  }

  /** The bucket an index lives in: its slot by the hash in its name (`p-`/`r-`/`u-` + 40 hex). */
  bucketOf(indexName: string): string {
    if (this.slots <= 1) return this.bucket;
    const slot = Number.parseInt(indexName.slice(2, 10), 16) % this.slots;
    return slot === 0 || Number.isNaN(slot) ? this.bucket : `${this.bucket}-${slot}`;
  }

  /** The buckets an index may be in: its slot's and the stack's, where indexes from before slots stay until upgraded. */
  private bucketsOf(indexName: string): Set<string> {
    return new Set([this.bucketOf(indexName), this.bucket]);
  }

  /** Every bucket indexes may be in: the stack's, then the slots'. */
  private allBuckets(): string[] {
    return [this.bucket, ...Array.from({ length: this.slots - 1 }, (_, slot) => `${this.bucket}-${slot + 1}`)];
  }

  /**
   * Runs `operation` on the index in its bucket and, when neither the index nor its bucket is found
   * there, in the stack's bucket, where indexes from before slots may still be (the last
   * NotFoundException is the caller's).
   */
  private async onIndex<T>(indexName: string, operation: (bucket: string) => Promise<T>): Promise<T> {
    const home = this.bucketOf(indexName);
    try {
      return await operation(home);
    } catch (error) {
      if (!isNotFound(error) || home === this.bucket) throw error;
      return operation(this.bucket);
    }
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
      const put = () => this.onIndex(indexName, (bucket) => this.retrying(() => client.send(new sdk.PutVectorsCommand({ vectorBucketName: bucket, indexName, vectors }))));
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
          this.onIndex(indexName, (bucket) => client.send(new sdk.GetVectorsCommand({ vectorBucketName: bucket, indexName, keys: batch, returnData: true, returnMetadata: true }))),
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
        await this.onIndex(indexName, (bucket) => this.retrying(() => client.send(new sdk.DeleteVectorsCommand({ vectorBucketName: bucket, indexName, keys: batch }))));
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
      response = await this.onIndex(indexName, (bucket) =>
        this.retrying(() =>
          client.send(
            new sdk.QueryVectorsCommand({
              vectorBucketName: bucket,
              indexName,
              topK,
              queryVector: { float32: Array.from(vector) },
              ...(filter ? { filter } : {}),
              returnMetadata: true,
              returnDistance: true,
            }),
          ),
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
      response = await this.onIndex(indexName, (bucket) =>
        this.retrying(() =>
          client.send(
            withWireFields(
              // The SDK's type wants a queryVector; a text-only query leaves it out on purpose.
              new sdk.QueryVectorsCommand({ vectorBucketName: bucket, indexName, topK, ...(filter ? { filter } : {}), returnMetadata: true } as never),
              { queryTexts, returnScores: true },
            ),
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
    const indexName = partitionIndexName(partition.namespaceId, partition.tenantId);
    for (const bucket of this.bucketsOf(indexName)) yield* this.listIndexKeys(indexName, bucket);
  }

  async dropPartition(partition: VectorPartition): Promise<void> {
    const { sdk, client } = await this.connect();
    const indexName = partitionIndexName(partition.namespaceId, partition.tenantId);
    const registry = registryIndexName(partition.namespaceId);
    const key = registryKey(partition.tenantId);
    // In its bucket and in the stack's, where it may be from before slots.
    for (const bucket of this.bucketsOf(indexName)) {
      await this.ignoringNotFound(() => this.retrying(() => client.send(new sdk.DeleteIndexCommand({ vectorBucketName: bucket, indexName }))));
      this.indexCounts.delete(bucket);
    }
    for (const bucket of this.bucketsOf(registry)) {
      await this.ignoringNotFound(() =>
        this.retrying(() => client.send(new sdk.DeleteVectorsCommand({ vectorBucketName: bucket, indexName: registry, keys: [key] }))),
      );
      // The registry goes with the namespace's last partition, so deleted namespaces leave no index
      // behind (indexes count against a per-bucket quota).
      const remaining = await this.ignoringNotFound(() =>
        this.retrying(() => client.send(new sdk.ListVectorsCommand({ vectorBucketName: bucket, indexName: registry, maxResults: 1 }))),
      );
      if (remaining && (remaining.vectors ?? []).length === 0) {
        await this.ignoringNotFound(() => this.retrying(() => client.send(new sdk.DeleteIndexCommand({ vectorBucketName: bucket, indexName: registry }))));
      }
      this.indexCounts.delete(bucket);
    }
  }

  /**
   * Pages through ListIndexes. The count is kept for a minute (and counts this store's own
   * creations meanwhile): admission checks run on every ingest-job request, and the ceiling they
   * check against leaves room for what other writers create within that minute.
   */
  async countIndexes(options: { fresh?: boolean; partition?: Pick<VectorPartition, "namespaceId" | "tenantId"> } = {}): Promise<number> {
    const bucket = options.partition ? this.bucketOf(partitionIndexName(options.partition.namespaceId, options.partition.tenantId)) : this.bucket;
    const cached = this.indexCounts.get(bucket);
    if (!options.fresh && cached && this.now() - cached.at < INDEX_COUNT_TTL_MS) return cached.count;
    const count = await this.countInBucket(bucket);
    this.indexCounts.set(bucket, { count, at: this.now() });
    return count;
  }

  /**
   * Indexes per bucket, for the operator's count: the stack's bucket and every slot bucket that holds
   * indexes. A slot bucket not created yet lists as empty, and is left out rather than shown as 0.
   */
  async countIndexesByBucket(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const bucket of this.allBuckets()) {
      const count = await this.countInBucket(bucket);
      if (bucket === this.bucket || count > 0) counts.set(bucket, count);
    }
    return counts;
  }

  private async countInBucket(bucket: string): Promise<number> {
    let count = 0;
    for await (const names of this.indexNamePages(bucket)) count += names.length;
    return count;
  }

  /**
   * Deletes every index of the buckets (and so every vector), then the slot buckets, for an operator
   * emptying a stage before `cdk destroy`: CloudFormation cannot delete a vector bucket that holds
   * indexes, and knows nothing of the slot buckets the service created.
   */
  async deleteAllIndexes(): Promise<number> {
    const { sdk, client } = await this.connect();
    let deleted = 0;
    for (const bucket of this.allBuckets()) {
      // Listed again after each page is deleted: deleting while paging would skip entries.
      for (;;) {
        const page = (await this.indexNamePages(bucket).next()).value as string[] | undefined;
        if (!page || page.length === 0) break;
        for (const indexName of page) {
          await this.ignoringNotFound(() => this.retrying(() => client.send(new sdk.DeleteIndexCommand({ vectorBucketName: bucket, indexName }))));
          deleted += 1;
        }
      }
      if (bucket !== this.bucket) await this.ignoringNotFound(() => this.retrying(() => client.send(new sdk.DeleteVectorBucketCommand({ vectorBucketName: bucket }))));
      this.indexCounts.delete(bucket);
    }
    return deleted;
  }

  /**
   * Brings every index to where and how the store now keeps it: a partition index created before
   * full-text search (not `ENHANCED`, or without the text field's configuration) is rebuilt as one
   * that has it, and an index outside its slot's bucket (from before slots) is moved there; a
   * registry is merged into its slot's. A partition's vectors are copied to a holding index `u-…` in
   * its bucket, the old index is deleted, the new one created and the vectors copied back. Safe to
   * run again after a crash at any step (the holding index is the copy of record while it exists).
   * Writes made to a partition while it is moved can be lost: run it while ingestion is paused.
   */
  async upgradeIndexes(log: (line: string) => void = () => {}): Promise<{ upgraded: number; current: number }> {
    const { sdk, client } = await this.connect();
    let upgraded = 0;
    let current = 0;
    const deleteIndex = (bucket: string, indexName: string) =>
      this.ignoringNotFound(() => this.retrying(() => client.send(new sdk.DeleteIndexCommand({ vectorBucketName: bucket, indexName }))));
    for (const bucket of this.allBuckets()) {
      const names: string[] = [];
      for await (const page of this.indexNamePages(bucket)) names.push(...page);
      for (const name of names.sort()) {
        const home = this.bucketOf(name);
        if (name.startsWith("r-")) {
          if (bucket === home) continue;
          await this.createIndex(name, 1, "euclidean", [], "-", false);
          await this.copyVectors(bucket, name, home, name);
          await deleteIndex(bucket, name);
          log(`${name}: registry moved to ${home}`);
          continue;
        }
        if (!name.startsWith("p-") && !name.startsWith("u-")) continue;
        const target = `p-${name.slice(2)}`;
        const holding = `u-${name.slice(2)}`;
        if (name.startsWith("p-")) {
          const found = (await this.ignoringNotFound(() =>
            this.retrying(() => client.send(withWireFields(new sdk.GetIndexCommand({ vectorBucketName: bucket, indexName: name }), {}))),
          )) as (WireOutput & { index?: { dimension?: number } }) | undefined;
          const described = found?.$wire?.index as { indexMode?: string; metadataConfiguration?: { textSearchConfigurations?: { metadataKey?: string }[] } } | undefined;
          const searchable = described?.metadataConfiguration?.textSearchConfigurations?.some((entry) => entry.metadataKey === TEXT_METADATA_KEY) ?? false;
          const dimension = found?.index?.dimension;
          if (!found || !dimension) continue;
          if (bucket === home && described?.indexMode === INDEX_MODE && searchable && !names.includes(holding)) {
            current += 1;
            continue;
          }
          await this.createIndex(holding, dimension, "cosine", [...NON_FILTERABLE_METADATA_KEYS], "-", true);
          const held = await this.copyVectors(bucket, name, home, holding);
          await deleteIndex(bucket, name);
          log(`${name}: ${held} vectors held in ${holding}`);
        } else if (bucket !== home) {
          continue;
        }
        // From here the holding index is the copy of record (also when resuming after a crash).
        const holdingIndex = (await this.ignoringNotFound(() => this.retrying(() => client.send(new sdk.GetIndexCommand({ vectorBucketName: home, indexName: holding })))))?.index;
        if (!holdingIndex?.dimension) continue;
        await this.createIndex(target, holdingIndex.dimension, "cosine", [...NON_FILTERABLE_METADATA_KEYS], "-", true);
        const restored = await this.copyVectors(home, holding, home, target);
        await deleteIndex(home, holding);
        log(`${target}: rebuilt in ${home} for full-text search with ${restored} vectors`);
        upgraded += 1;
      }
      this.indexCounts.delete(bucket);
    }
    return { upgraded, current };
  }

  /** Copies every vector (data and metadata) of one index into another; returns how many. */
  private async copyVectors(fromBucket: string, from: string, toBucket: string, to: string): Promise<number> {
    const { sdk, client } = await this.connect();
    let nextToken: string | undefined;
    let copied = 0;
    do {
      const token = nextToken;
      const page = await this.retrying(() =>
        client.send(
          new sdk.ListVectorsCommand({
            vectorBucketName: fromBucket,
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
      if (vectors.length > 0) await this.retrying(() => client.send(new sdk.PutVectorsCommand({ vectorBucketName: toBucket, indexName: to, vectors })));
      copied += vectors.length;
      nextToken = page.nextToken;
    } while (nextToken);
    return copied;
  }

  /**
   * Index names of a bucket, page by page; none when the bucket does not exist: a slot bucket is
   * created with its first index, so before that it holds nothing (ListIndexes answers NotFound).
   */
  private async *indexNamePages(bucket: string): AsyncGenerator<string[]> {
    const { sdk, client } = await this.connect();
    let nextToken: string | undefined;
    do {
      const token = nextToken;
      let page;
      try {
        page = await this.retrying(() =>
          client.send(
            new sdk.ListIndexesCommand({
              vectorBucketName: bucket,
              maxResults: S3_VECTORS_LIMITS.maxListIndexesPage,
              ...(token ? { nextToken: token } : {}),
            }),
          ),
        );
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
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
      this.onIndex(indexName, (bucket) => this.retrying(() => client.send(new sdk.GetIndexCommand({ vectorBucketName: bucket, indexName })))),
    );
    return found !== undefined;
  }

  async listPartitions(namespaceId: string): Promise<{ tenantId: string | null }[]> {
    const registry = registryIndexName(namespaceId);
    const keys = new Set<string>();
    // Its slot's registry and, from before slots, the stack's bucket's.
    for (const bucket of this.bucketsOf(registry)) {
      for await (const page of this.listIndexKeys(registry, bucket)) for (const key of page) keys.add(key);
    }
    return [...keys].map((key) => ({ tenantId: tenantFromRegistryKey(key) }));
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
          vectorBucketName: this.bucketOf(registry),
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
    const bucket = this.bucketOf(indexName);
    const create = () =>
      this.retrying(() => {
        const command = new sdk.CreateIndexCommand({
          vectorBucketName: bucket,
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
    try {
      try {
        await create();
      } catch (error) {
        // The slot's bucket is created on its first index.
        if (!isNotFound(error) || bucket === this.bucket) throw error;
        await this.createBucket(bucket);
        await create();
      }
      const counted = this.indexCounts.get(bucket);
      if (counted) counted.count += 1;
    } catch (error) {
      // Another writer created it first: same name, same settings, fine.
      if (isConflict(error)) return;
      if (errorName(error) === "ServiceQuotaExceededException") throw new VectorQuotaError(S3_VECTORS_LIMITS.maxIndexesPerBucket, namespaceId);
      throw error;
    }
  }

  private async createBucket(bucket: string): Promise<void> {
    const { sdk, client } = await this.connect();
    try {
      await this.retrying(() => client.send(new sdk.CreateVectorBucketCommand({ vectorBucketName: bucket, encryptionConfiguration: { sseType: "AES256" } })));
      logger.info("created vector bucket", { bucket });
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }

  private async *listIndexKeys(indexName: string, inBucket?: string): AsyncIterable<string[]> {
    const { sdk, client } = await this.connect();
    let nextToken: string | undefined;
    do {
      const token = nextToken;
      let page;
      try {
        page = await this.retrying(() =>
          client.send(
            new sdk.ListVectorsCommand({
              vectorBucketName: inBucket ?? this.bucketOf(indexName),
              indexName,
              maxResults: LIST_PAGE,
              ...(token ? { nextToken: token } : {}),
            }),
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
export function create(): VectorStore {
  return new S3VectorsStore({ vectorBucketName: config.vectorBucketName(), bucketSlots: config.vectorBucketSlots() });
}
