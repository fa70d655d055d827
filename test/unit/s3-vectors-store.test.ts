import { createHash } from "node:crypto";
import {
  ConflictException,
  CreateIndexCommand,
  DeleteIndexCommand,
  DeleteVectorsCommand,
  ListIndexesCommand,
  ListVectorsCommand,
  NotFoundException,
  PutVectorsCommand,
  QueryVectorsCommand,
  S3VectorsClient,
  TooManyRequestsException,
  ValidationException,
} from "@aws-sdk/client-s3vectors";
import { describe, expect, it, vi } from "vitest";
import { matchesFilter, type MetadataFilter } from "../../functions/shared/domain/metadata-filter.ts";
import {
  partitionIndexName,
  registryIndexName,
  S3VectorsStore,
} from "../../functions/shared/vector-store/s3-vectors.ts";
import type { VectorRecord } from "../../functions/shared/vector-store/types.ts";
import { type VectorPartition } from "../../functions/shared/domain/partitions.ts";

const BUCKET = "vectors-test";
const INDEX_NAME_RULE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

interface FakeIndex {
  dimension: number;
  distanceMetric: string;
  nonFilterable: string[];
  vectors: Map<string, { data: number[]; metadata: Record<string, unknown> }>;
}

const meta = { $metadata: {} };

/**
 * An in-memory imitation of the S3 Vectors API behind a real client's `send`: it records every
 * command and enforces the limits the adapter must respect (names, batch sizes, dimensions).
 */
function fakeS3Vectors() {
  const indexes = new Map<string, FakeIndex>();
  const commands: { name: string; input: any }[] = [];
  const failures: Error[] = [];
  let beforePut: ((indexName: string) => void) | undefined;

  const send = async (command: { input: any; constructor: { name: string } }) => {
    const input = command.input;
    commands.push({ name: command.constructor.name, input });
    const injected = failures.shift();
    if (injected) throw injected;
    expect(input.vectorBucketName).toBe(BUCKET);
    const index = () => {
      const found = indexes.get(input.indexName);
      if (!found) throw new NotFoundException({ message: "The specified index could not be found", ...meta });
      return found;
    };
    if (command instanceof CreateIndexCommand) {
      expect(input.indexName).toMatch(INDEX_NAME_RULE);
      if (indexes.has(input.indexName)) throw new ConflictException({ message: "exists", ...meta });
      indexes.set(input.indexName, {
        dimension: input.dimension,
        distanceMetric: input.distanceMetric,
        nonFilterable: input.metadataConfiguration?.nonFilterableMetadataKeys ?? [],
        vectors: new Map(),
      });
      return { indexArn: `arn:${input.indexName}`, ...meta };
    }
    if (command instanceof PutVectorsCommand) {
      beforePut?.(input.indexName);
      const target = index();
      if (input.vectors.length > 500) throw new ValidationException({ message: "too many vectors", ...meta });
      for (const vector of input.vectors) {
        if (vector.data.float32.length !== target.dimension) throw new ValidationException({ message: "dimension", ...meta });
        target.vectors.set(vector.key, { data: vector.data.float32, metadata: vector.metadata ?? {} });
      }
      return meta;
    }
    if (command instanceof DeleteVectorsCommand) {
      const target = index();
      if (input.keys.length > 500) throw new ValidationException({ message: "too many keys", ...meta });
      for (const key of input.keys) target.vectors.delete(key);
      return meta;
    }
    if (command instanceof QueryVectorsCommand) {
      const target = index();
      if (input.topK > 100) throw new ValidationException({ message: "topK", ...meta });
      const query: number[] = input.queryVector.float32;
      const norm = (v: number[]) => Math.hypot(...v);
      const hits = [...target.vectors.entries()]
        .filter(([, vector]) => !input.filter || matchesFilter(vector.metadata as never, input.filter as MetadataFilter))
        .map(([key, vector]) => {
          const cos = vector.data.reduce((sum, x, i) => sum + x * query[i]!, 0) / (norm(vector.data) * norm(query));
          return { key, distance: 1 - cos, ...(input.returnMetadata ? { metadata: vector.metadata } : {}) };
        })
        .sort((a, b) => a.distance - b.distance)
        .slice(0, input.topK);
      return { vectors: hits, distanceMetric: "cosine", ...meta };
    }
    if (command instanceof ListVectorsCommand) {
      const target = index();
      const keys = [...target.vectors.keys()];
      const start = input.nextToken ? Number(input.nextToken) : 0;
      const size = Math.min(input.maxResults ?? 500, 1000);
      const page = keys.slice(start, start + size).map((key) => ({ key }));
      const next = start + size < keys.length ? String(start + size) : undefined;
      return { vectors: page, ...(next ? { nextToken: next } : {}), ...meta };
    }
    if (command instanceof ListIndexesCommand) {
      const names = [...indexes.keys()].sort();
      const start = input.nextToken ? Number(input.nextToken) : 0;
      const size = Math.min(input.maxResults ?? 500, 500);
      const page = names.slice(start, start + size).map((indexName) => ({ indexName, vectorBucketName: BUCKET }));
      const next = start + size < names.length ? String(start + size) : undefined;
      return { indexes: page, ...(next ? { nextToken: next } : {}), ...meta };
    }
    if (command instanceof DeleteIndexCommand) {
      index();
      indexes.delete(input.indexName);
      return meta;
    }
    throw new Error(`unexpected command ${command.constructor.name}`);
  };

  const client = new S3VectorsClient({ region: "us-east-1", credentials: { accessKeyId: "test", secretAccessKey: "test" } });
  vi.spyOn(client, "send").mockImplementation(send as never);
  const store = new S3VectorsStore({ client, vectorBucketName: BUCKET, retryBaseDelayMs: 1, maxRetryDelayMs: 5 });
  return {
    store,
    indexes,
    commands,
    names: () => commands.map((command) => command.name),
    failNext: (...errors: Error[]) => failures.push(...errors),
    onPut: (hook: (indexName: string) => void) => {
      beforePut = hook;
    },
    reset: () => commands.splice(0),
  };
}

const DIM = 4;
function partition(namespaceId: string, tenantId: string | null): VectorPartition {
  return { namespaceId, tenantId, dimension: DIM };
}

function record(key: string, values: number[], metadata: VectorRecord["metadata"] = {}): VectorRecord {
  return { key, vector: Float32Array.from(values), metadata, text: `text of ${key}` };
}

function many(count: number): VectorRecord[] {
  return Array.from({ length: count }, (_, index) => record(`k${index}`, [1, index % 7, 0.5, 0]));
}

describe("S3 Vectors store", () => {
  it("names each partition's index p- plus 40 hex of sha256(namespace NUL tenant)", () => {
    const expected = createHash("sha256").update("ns_1\u0000t1").digest("hex").slice(0, 40);
    expect(partitionIndexName("ns_1", "t1")).toBe(`p-${expected}`);
    const noTenant = createHash("sha256").update("ns_1\u0000").digest("hex").slice(0, 40);
    expect(partitionIndexName("ns_1", null)).toBe(`p-${noTenant}`);
    expect(partitionIndexName("ns_1", null)).not.toBe(partitionIndexName("ns_1", "t1"));
    expect(partitionIndexName("a", "bc")).not.toBe(partitionIndexName("ab", "c"));
    expect(partitionIndexName("ns_1", "t1")).toMatch(INDEX_NAME_RULE);
    expect(partitionIndexName("ns_1", "t1")).toHaveLength(42);
  });

  it("creates the partition's index lazily on the first write, registered first", async () => {
    const fake = fakeS3Vectors();
    const target = partition("ns_1", "t1");
    expect(fake.commands).toHaveLength(0);
    await fake.store.upsert(target, [record("a", [1, 0, 0, 0])]);
    expect(fake.names()).toEqual([
      "PutVectorsCommand",
      "CreateIndexCommand",
      "PutVectorsCommand",
      "CreateIndexCommand",
      "PutVectorsCommand",
    ]);
    expect(fake.commands[1]!.input.indexName).toBe(registryIndexName("ns_1"));
    expect(fake.commands[3]!.input).toEqual({
      vectorBucketName: BUCKET,
      indexName: partitionIndexName("ns_1", "t1"),
      dataType: "float32",
      dimension: DIM,
      distanceMetric: "cosine",
      metadataConfiguration: { nonFilterableMetadataKeys: ["text"] },
    });

    fake.reset();
    await fake.store.upsert(target, [record("b", [0, 1, 0, 0])]);
    expect(fake.names()).toEqual(["PutVectorsCommand"]);
  });

  it("takes a ConflictException from CreateIndex to mean another writer created it", async () => {
    const fake = fakeS3Vectors();
    const target = partition("ns_1", null);
    const name = partitionIndexName("ns_1", null);
    let raced = false;
    fake.onPut((indexName) => {
      // Another Lambda creates the index between our failed write and our CreateIndex.
      if (indexName === name && !raced) {
        raced = true;
        throw new NotFoundException({ message: "missing", $metadata: {} });
      }
    });
    fake.indexes.set(name, { dimension: DIM, distanceMetric: "cosine", nonFilterable: ["text"], vectors: new Map() });
    await fake.store.upsert(target, [record("a", [1, 0, 0, 0])]);
    expect(fake.indexes.get(name)!.vectors.has("a")).toBe(true);
  });

  it("writes vectors as float32 arrays with the text as metadata, in batches of at most 500", async () => {
    const fake = fakeS3Vectors();
    const target = partition("ns_1", null);
    await fake.store.upsert(target, [record("a", [1, 2, 3, 4], { genre: "drama", text: "user field" })]);
    const put = fake.commands.at(-1)!.input;
    expect(put.vectors).toEqual([
      { key: "a", data: { float32: [1, 2, 3, 4] }, metadata: { genre: "drama", text: "text of a" } },
    ]);

    fake.reset();
    await fake.store.upsert(target, many(1201));
    const puts = fake.commands.filter((command) => command.name === "PutVectorsCommand");
    expect(puts.map((command) => command.input.vectors.length)).toEqual([500, 500, 201]);
    expect(fake.indexes.get(partitionIndexName("ns_1", null))!.vectors.size).toBe(1202);

    fake.reset();
    await fake.store.deleteKeys(target, many(1201).map((item) => item.key));
    expect(fake.commands.map((command) => command.input.keys.length)).toEqual([500, 500, 201]);
    expect([...fake.indexes.get(partitionIndexName("ns_1", null))!.vectors.keys()]).toEqual(["a"]);
  });

  it("cuts batches of large vectors to stay under the request size limit", async () => {
    const fake = fakeS3Vectors();
    const big: VectorPartition = { namespaceId: "ns_big", tenantId: null, dimension: 3072 };
    const records = Array.from({ length: 500 }, (_, index) => ({
      key: `k${index}`,
      vector: new Float32Array(3072).fill(0.01),
      metadata: {},
      text: "x".repeat(2048),
    }));
    await fake.store.upsert(big, records.slice(0, 1));
    fake.reset();
    await fake.store.upsert(big, records);
    const sizes = fake.commands.map((command) => command.input.vectors.length);
    // About 64 KB of JSON each: a 16 MiB budget fits about 260.
    expect(sizes.length).toBe(2);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(500);
  });

  it("queries with topK, metadata and distance, translates the filter and maps distance to (1 + cos) / 2", async () => {
    const fake = fakeS3Vectors();
    const target = partition("ns_1", null);
    await fake.store.upsert(target, [
      record("same", [1, 0, 0, 0], { genre: "drama", year: 2004 }),
      record("orthogonal", [0, 1, 0, 0], { genre: "drama", year: 2010 }),
      record("opposite", [-1, 0, 0, 0], { genre: "comedy", year: 2010 }),
    ]);
    fake.reset();
    const matches = await fake.store.query(target, Float32Array.from([2, 0, 0, 0]), { topK: 10 });
    expect(fake.commands[0]!.input).toEqual({
      vectorBucketName: BUCKET,
      indexName: partitionIndexName("ns_1", null),
      topK: 10,
      queryVector: { float32: [2, 0, 0, 0] },
      returnMetadata: true,
      returnDistance: true,
    });
    expect(matches.map((match) => [match.key, Number(match.score.toFixed(6))])).toEqual([
      ["same", 1],
      ["orthogonal", 0.5],
      ["opposite", 0],
    ]);
    expect(matches[0]).toMatchObject({ text: "text of same", metadata: { genre: "drama", year: 2004 } });
    expect(matches[0]!.metadata).not.toHaveProperty("text");

    fake.reset();
    const filtered = await fake.store.query(target, Float32Array.from([1, 0, 0, 0]), {
      topK: 500,
      filter: { genre: "drama", year: { $gt: 2005 } },
    });
    expect(fake.commands[0]!.input.topK).toBe(100);
    expect(fake.commands[0]!.input.filter).toEqual({ $and: [{ genre: { $eq: "drama" } }, { year: { $gt: 2005 } }] });
    expect(filtered.map((match) => match.key)).toEqual(["orthogonal"]);
  });

  it("keeps tenants apart, the no-tenant partition included", async () => {
    const fake = fakeS3Vectors();
    await fake.store.upsert(partition("ns_1", null), [record("shared", [1, 0, 0, 0])]);
    await fake.store.upsert(partition("ns_1", "t1"), [record("tenant", [1, 0, 0, 0])]);
    await fake.store.upsert(partition("ns_2", null), [record("other", [1, 0, 0, 0])]);
    const keys = async (target: VectorPartition) =>
      (await fake.store.query(target, Float32Array.from([1, 0, 0, 0]), { topK: 5 })).map((match) => match.key);
    expect(await keys(partition("ns_1", null))).toEqual(["shared"]);
    expect(await keys(partition("ns_1", "t1"))).toEqual(["tenant"]);
    expect(await keys(partition("ns_2", null))).toEqual(["other"]);
    expect(await keys(partition("ns_1", "t2"))).toEqual([]);
  });

  it("treats a partition nothing was written to as empty", async () => {
    const fake = fakeS3Vectors();
    const target = partition("ns_none", "t9");
    expect(await fake.store.query(target, Float32Array.from([1, 0, 0, 0]), { topK: 3 })).toEqual([]);
    await fake.store.deleteKeys(target, ["a", "b"]);
    const pages: string[][] = [];
    for await (const page of fake.store.listKeys(target)) pages.push(page);
    expect(pages).toEqual([]);
    await fake.store.dropPartition(target);
    expect(await fake.store.listPartitions("ns_none")).toEqual([]);
  });

  it("lists keys page by page through nextToken", async () => {
    const fake = fakeS3Vectors();
    const target = partition("ns_1", null);
    await fake.store.upsert(target, many(2500));
    fake.reset();
    const pages: number[] = [];
    for await (const page of fake.store.listKeys(target)) pages.push(page.length);
    expect(pages).toEqual([1000, 1000, 500]);
    expect(fake.commands.map((command) => command.input.nextToken)).toEqual([undefined, "1000", "2000"]);
  });

  it("lists a namespace's partitions from its registry and forgets them when dropped", async () => {
    const fake = fakeS3Vectors();
    await fake.store.upsert(partition("ns_1", null), [record("a", [1, 0, 0, 0])]);
    await fake.store.upsert(partition("ns_1", "t1"), [record("b", [1, 0, 0, 0])]);
    await fake.store.upsert(partition("ns_2", "t1"), [record("c", [1, 0, 0, 0])]);
    expect(await fake.store.listPartitions("ns_1")).toEqual(expect.arrayContaining([{ tenantId: null }, { tenantId: "t1" }]));
    expect(await fake.store.listPartitions("ns_1")).toHaveLength(2);

    await fake.store.dropPartition(partition("ns_1", "t1"));
    expect(fake.indexes.has(partitionIndexName("ns_1", "t1"))).toBe(false);
    expect(await fake.store.listPartitions("ns_1")).toEqual([{ tenantId: null }]);
    expect(fake.indexes.has(registryIndexName("ns_1"))).toBe(true);

    await fake.store.dropPartition(partition("ns_1", null));
    expect(await fake.store.listPartitions("ns_1")).toEqual([]);
    // The namespace leaves no index behind; the other namespace is untouched.
    expect([...fake.indexes.keys()].sort()).toEqual([partitionIndexName("ns_2", "t1"), registryIndexName("ns_2")].sort());

    // Writing again after a drop recreates and re-registers the partition.
    await fake.store.upsert(partition("ns_1", "t1"), [record("d", [1, 0, 0, 0])]);
    expect(await fake.store.listPartitions("ns_1")).toEqual([{ tenantId: "t1" }]);
  });

  it("retries throttling and service faults, but not validation errors", async () => {
    const fake = fakeS3Vectors();
    const target = partition("ns_1", null);
    await fake.store.upsert(target, [record("a", [1, 0, 0, 0])]);
    fake.reset();
    fake.failNext(new TooManyRequestsException({ message: "slow down", $metadata: {} }), Object.assign(new Error("busy"), { name: "ServiceUnavailableException" }));
    const matches = await fake.store.query(target, Float32Array.from([1, 0, 0, 0]), { topK: 1 });
    expect(matches.map((match) => match.key)).toEqual(["a"]);
    expect(fake.commands).toHaveLength(3);

    fake.reset();
    fake.failNext(new ValidationException({ message: "bad filter", $metadata: {} }));
    await expect(fake.store.query(target, Float32Array.from([1, 0, 0, 0]), { topK: 1 })).rejects.toThrow("bad filter");
    expect(fake.commands).toHaveLength(1);
  });

  it("refuses vectors whose dimension is not the partition's", async () => {
    const fake = fakeS3Vectors();
    await expect(fake.store.upsert(partition("ns_1", null), [record("a", [1, 0])])).rejects.toThrow(/2 dimensions/);
    expect(fake.commands).toHaveLength(0);
  });
});

describe("emptying the bucket before a stack is destroyed", () => {
  it("counts every index, then deletes them all, page after page", async () => {
    const fake = fakeS3Vectors();
    for (let index = 0; index < 6; index += 1) await fake.store.upsert(partition(`ns${index}`, index % 2 ? "acme" : null), [record("a", [1, 0, 0, 0])]);
    expect(await fake.store.countIndexes({ fresh: true })).toBe(12);
    expect(await fake.store.deleteAllIndexes()).toBe(12);
    expect(fake.indexes.size).toBe(0);
    expect(await fake.store.countIndexes({ fresh: true })).toBe(0);
  });
});
