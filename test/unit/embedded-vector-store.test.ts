import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedVectorStore, embeddedVectorStore } from "../../functions/shared/vector-store/embedded.ts";
import { vectorStore } from "../../functions/shared/vector-store/index.ts";
import type { VectorRecord } from "../../functions/shared/vector-store/types.ts";
import { type VectorPartition } from "../../functions/shared/domain/partitions.ts";
import { type MetadataFilter } from "../../functions/shared/domain/metadata-filter.ts";

const DIM = 8;

function unit(index: number, dimension = DIM): Float32Array {
  const vector = new Float32Array(dimension);
  vector[index % dimension] = 1;
  return vector;
}

function vector(...values: number[]): Float32Array {
  return Float32Array.from(values);
}

function record(key: string, values: Float32Array, metadata: VectorRecord["metadata"] = {}): VectorRecord {
  return { key, vector: values, metadata, text: `text of ${key}` };
}

function partition(namespaceId: string, tenantId: string | null, dimension = DIM): VectorPartition {
  return { namespaceId, tenantId, dimension };
}

async function allKeys(store: EmbeddedVectorStore, target: VectorPartition): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of store.listKeys(target)) keys.push(...page);
  return keys.sort();
}

/** Deterministic pseudo-random unit-ish vectors, so runs are comparable. */
function randomVectors(count: number, dimension: number, seed: number): Float32Array[] {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
  return Array.from({ length: count }, () => Float32Array.from({ length: dimension }, next));
}

describe("embedded vector store", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("keeps each (namespace, tenant) partition to itself, the no-tenant partition included", async () => {
    const store = new EmbeddedVectorStore();
    const shared = partition("ns_a", null);
    const tenant = partition("ns_a", "t1");
    const other = partition("ns_b", null);
    await store.upsert(shared, [record("shared", unit(0))]);
    await store.upsert(tenant, [record("tenant", unit(0))]);
    await store.upsert(other, [record("other", unit(0))]);

    const keys = async (target: VectorPartition) => (await store.query(target, unit(0), { topK: 10 })).map((match) => match.key);
    expect(await keys(shared)).toEqual(["shared"]);
    expect(await keys(tenant)).toEqual(["tenant"]);
    expect(await keys(other)).toEqual(["other"]);
    expect(await keys(partition("ns_a", "t2"))).toEqual([]);
    expect(await store.listPartitions("ns_a")).toEqual(expect.arrayContaining([{ tenantId: null }, { tenantId: "t1" }]));
    expect(await store.listPartitions("ns_a")).toHaveLength(2);
  });

  it("scores (1 + cos) / 2 and returns the best first, at most topK", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null, 2);
    await store.upsert(target, [
      record("same", vector(1, 0)),
      record("opposite", vector(-1, 0)),
      record("orthogonal", vector(0, 3)),
      record("close", vector(0.9, 0.1)),
    ]);
    const matches = await store.query(target, vector(2, 0), { topK: 10 });
    expect(matches.map((match) => match.key)).toEqual(["same", "close", "orthogonal", "opposite"]);
    expect(matches[0]!.score).toBeCloseTo(1, 6);
    expect(matches[2]!.score).toBeCloseTo(0.5, 6);
    expect(matches[3]!.score).toBeCloseTo(0, 6);
    expect(matches[0]!.text).toBe("text of same");

    const top2 = await store.query(target, vector(2, 0), { topK: 2 });
    expect(top2.map((match) => match.key)).toEqual(["same", "close"]);
  });

  it("finds the exact top k among many vectors, as a full sort would", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null, 16);
    const vectors = randomVectors(2000, 16, 3);
    await store.upsert(target, vectors.map((values, index) => record(`k${index}`, values)));
    const query = randomVectors(1, 16, 99)[0]!;
    const norm = (v: Float32Array) => Math.hypot(...v);
    const expected = vectors
      .map((values, index) => ({ key: `k${index}`, cos: values.reduce((sum, x, i) => sum + x * query[i]!, 0) / norm(values) / norm(query) }))
      .sort((a, b) => b.cos - a.cos)
      .slice(0, 25);
    const matches = await store.query(target, query, { topK: 25 });
    expect(matches.map((match) => match.key)).toEqual(expected.map((item) => item.key));
    matches.forEach((match, index) => expect(match.score).toBeCloseTo((1 + expected[index]!.cos) / 2, 5));
  });

  it("replaces a record written again under the same key", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null);
    await store.upsert(target, [record("a", unit(0), { v: 1 }), record("b", unit(1))]);
    await store.upsert(target, [{ key: "a", vector: unit(2), metadata: { v: 2 }, text: "new text" }]);
    expect(store.size(target)).toBe(2);
    const [best] = await store.query(target, unit(2), { topK: 1 });
    expect(best).toMatchObject({ key: "a", text: "new text", metadata: { v: 2 } });
    expect(best!.score).toBeCloseTo(1, 6);
  });

  it("deletes keys, ignores missing ones, and keeps every other record findable", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null);
    await store.upsert(target, Array.from({ length: 8 }, (_, index) => record(`k${index}`, unit(index), { index })));
    await store.deleteKeys(target, ["k0", "k3", "missing"]);
    await store.deleteKeys(partition("never", null), ["k1"]);
    expect(store.size(target)).toBe(6);
    expect(await allKeys(store, target)).toEqual(["k1", "k2", "k4", "k5", "k6", "k7"]);
    for (const index of [1, 2, 4, 5, 6, 7]) {
      const [best] = await store.query(target, unit(index), { topK: 1 });
      expect(best).toMatchObject({ key: `k${index}`, metadata: { index }, text: `text of k${index}` });
      expect(best!.score).toBeCloseTo(1, 6);
    }
  });

  it("applies the filter before ranking, so topK counts only matching records", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null, 2);
    await store.upsert(target, [
      record("best-draft", vector(1, 0), { status: "draft", year: 2024 }),
      record("good-final", vector(0.8, 0.2), { status: "final", year: 2020, tags: ["x"] }),
      record("weak-final", vector(0, 1), { status: "final", year: 2010, tags: ["y", "x"] }),
    ]);
    const keys = async (filter: MetadataFilter, topK = 10) =>
      (await store.query(target, vector(1, 0), { topK, filter })).map((match) => match.key);
    expect(await keys({ status: "final" }, 1)).toEqual(["good-final"]);
    expect(await keys({ year: { $lt: 2021 } })).toEqual(["good-final", "weak-final"]);
    expect(await keys({ tags: "y" })).toEqual(["weak-final"]);
    expect(await keys({ $or: [{ status: "draft" }, { year: 2010 }] })).toEqual(["best-draft", "weak-final"]);
    expect(await keys({ status: "archived" })).toEqual([]);
  });

  it("returns copies of metadata that callers cannot use to change the store", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null);
    const metadata = { tags: ["a"] };
    await store.upsert(target, [record("a", unit(0), metadata)]);
    metadata.tags.push("changed");
    const [first] = await store.query(target, unit(0), { topK: 1 });
    (first!.metadata.tags as string[]).push("mutated");
    const [second] = await store.query(target, unit(0), { topK: 1 });
    expect(second!.metadata).toEqual({ tags: ["a"] });
  });

  it("clamps topK to 100 and treats 0 as no results", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null);
    await store.upsert(target, randomVectors(150, DIM, 1).map((values, index) => record(`k${index}`, values)));
    expect(await store.query(target, unit(0), { topK: 500 })).toHaveLength(100);
    expect(await store.query(target, unit(0), { topK: 2.7 })).toHaveLength(2);
    expect(await store.query(target, unit(0), { topK: 0 })).toEqual([]);
  });

  it("refuses vectors whose dimension is not the partition's", async () => {
    const store = new EmbeddedVectorStore();
    await expect(store.upsert(partition("ns", null), [record("a", new Float32Array(3))])).rejects.toThrow(/3 dimensions/);
    await expect(store.query(partition("ns", null), new Float32Array(3), { topK: 1 })).rejects.toThrow(/3 dimensions/);
  });

  it("lists keys in pages and drops a partition entirely", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", "t1");
    await store.upsert(target, randomVectors(2500, DIM, 2).map((values, index) => record(`k${index}`, values)));
    const pages: number[] = [];
    for await (const page of store.listKeys(target)) pages.push(page.length);
    expect(pages).toEqual([1000, 1000, 500]);
    await store.dropPartition(target);
    expect(store.size(target)).toBe(0);
    expect(await store.query(target, unit(0), { topK: 5 })).toEqual([]);
    expect(await store.listPartitions("ns")).toEqual([]);
  });

  it("saves to a file and loads back the same partitions, records and answers", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vectors-"));
    dirs.push(dir);
    const file = join(dir, "nested", "vectors.bin");
    const store = new EmbeddedVectorStore();
    const shared = partition("ns", null, 12);
    const tenant = partition("ns", "t1", 12);
    const vectors = randomVectors(300, 12, 5);
    await store.upsert(
      shared,
      vectors.map((values, index) => ({ key: `k${index}`, vector: values, metadata: { index, tags: ["a", "ü"] }, text: `テキスト ${index}` })),
    );
    await store.upsert(tenant, [record("only", unit(3, 12), { flag: true })]);
    await store.deleteKeys(shared, ["k7"]);
    await store.saveTo(file);

    const restored = new EmbeddedVectorStore();
    expect(await restored.loadFrom(file)).toBe(true);
    const query = randomVectors(1, 12, 42)[0]!;
    expect(await restored.query(shared, query, { topK: 20 })).toEqual(await store.query(shared, query, { topK: 20 }));
    expect(await restored.query(tenant, unit(3, 12), { topK: 5 })).toEqual(await store.query(tenant, unit(3, 12), { topK: 5 }));
    expect(restored.size(shared)).toBe(299);
    expect(await restored.listPartitions("ns")).toHaveLength(2);

    // Still fully writable after loading.
    await restored.upsert(shared, [record("k7", unit(0, 12))]);
    await restored.deleteKeys(shared, ["k0"]);
    expect(restored.size(shared)).toBe(299);
  });

  it("reports a missing snapshot file instead of failing, and keeps its contents", async () => {
    const store = new EmbeddedVectorStore();
    await store.upsert(partition("ns", null), [record("a", unit(0))]);
    expect(await store.loadFrom(join(tmpdir(), "does-not-exist", "vectors.bin"))).toBe(false);
    expect(store.size(partition("ns", null))).toBe(1);
  });

  it("answers a query over 10,000 × 384 vectors quickly", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null, 384);
    const vectors = randomVectors(10_000, 384, 11);
    await store.upsert(target, vectors.map((values, index) => record(`k${index}`, values, { even: index % 2 === 0 })));
    const queries = randomVectors(21, 384, 12);
    const times: number[] = [];
    for (const query of queries) {
      const started = performance.now();
      const matches = store.querySync(target, query, { topK: 10 });
      times.push(performance.now() - started);
      expect(matches).toHaveLength(10);
    }
    times.sort((a, b) => a - b);
    // About 4 ms at the median on a 2-core machine; the bound allows for a loaded CI runner.
    expect(times[10]!).toBeLessThan(100);
  });

  it("is one store per process, and the one vectorStore() gives in local mode", async () => {
    const previous = process.env.VECTOR_STORE_BACKEND;
    delete process.env.VECTOR_STORE_BACKEND;
    try {
      expect(embeddedVectorStore()).toBe(embeddedVectorStore());
      expect((await vectorStore())).toBe(embeddedVectorStore());
      process.env.VECTOR_STORE_BACKEND = "pinecone";
      await expect(vectorStore()).rejects.toThrow(/must be one of "s3vectors", "embedded", not "pinecone"/);
    } finally {
      if (previous === undefined) delete process.env.VECTOR_STORE_BACKEND;
      else process.env.VECTOR_STORE_BACKEND = previous;
    }
  });
});
