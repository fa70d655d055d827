import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedVectorStore, embeddedVectorStore } from "../../functions/shared/vector-store/embedded.ts";
import { vectorStore } from "../../functions/shared/vector-store/index.ts";
import { clampTopK, type VectorMatch, type VectorRecord } from "../../functions/shared/vector-store/types.ts";
import { type VectorPartition } from "../../functions/shared/domain/partitions.ts";
import { matchesFilter, type MetadataFilter } from "../../functions/shared/domain/metadata-filter.ts";
import { seededRandom } from "../support/seeded-random.ts";

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

/**
 * The scan written the obvious way, as the reference the store's scan must equal: float32 unit
 * vectors (as the store keeps them), the filter first, one sequential float64 sum per record, a full
 * sort by score and then key, the first topK.
 */
const unitVectors = new WeakMap<Float32Array, Float32Array>();
function unitVector(values: Float32Array): Float32Array {
  let found = unitVectors.get(values);
  if (!found) {
    let sum = 0;
    for (const x of values) sum += x * x;
    const scale = 1 / Math.sqrt(sum);
    found = Float32Array.from(values, (x) => x * scale);
    unitVectors.set(values, found);
  }
  return found;
}

function naiveQuery(records: readonly VectorRecord[], query: Float32Array, topK: number, filter?: MetadataFilter): { key: string; score: number }[] {
  return naiveRanking(records, query, filter).slice(0, clampTopK(topK));
}

function naiveRanking(records: readonly VectorRecord[], query: Float32Array, filter?: MetadataFilter): { key: string; score: number }[] {
  const q = unitVector(query);
  return records
    .filter((record) => !filter || matchesFilter(record.metadata, filter))
    .map((record) => {
      const v = unitVector(record.vector);
      let cos = 0;
      for (let i = 0; i < v.length; i++) cos += v[i]! * q[i]!;
      return { key: record.key, cos };
    })
    .sort((a, b) => b.cos - a.cos || (a.key < b.key ? -1 : 1))
    .map(({ key, cos }) => ({ key, score: (1 + cos) / 2 }));
}

function expectSameAnswer(actual: VectorMatch[], expected: { key: string; score: number }[]): void {
  expect(actual.map((match) => match.key)).toEqual(expected.map((match) => match.key));
  actual.forEach((match, index) => expect(Math.abs(match.score - expected[index]!.score)).toBeLessThan(1e-6));
}

/**
 * Records of three kinds, as the scan meets them: dense (a model embedder's), sparse with a few
 * dozen non-zero components (the LOCAL embedder's), and exact copies of earlier ones (ties).
 */
function mixedCorpus(count: number, dimension: number, seed: number): VectorRecord[] {
  const random = seededRandom(seed);
  const categories = ["finance", "legal", "support", "sales"];
  const records: VectorRecord[] = [];
  for (let index = 0; index < count; index++) {
    const kind = random();
    let values: Float32Array;
    if (kind < 0.45) {
      values = Float32Array.from({ length: dimension }, () => random() - 0.5);
    } else if (kind < 0.9 || index === 0) {
      values = new Float32Array(dimension);
      const nonZero = 1 + Math.floor(random() * Math.min(24, dimension));
      for (let n = 0; n < nonZero; n++) values[Math.floor(random() * dimension)] = random() < 0.5 ? -1 - random() : 1 + random();
      if (values.every((x) => x === 0)) values[0] = 1;
    } else {
      values = records[Math.floor(random() * records.length)]!.vector.slice();
    }
    const metadata = {
      category: categories[Math.floor(random() * categories.length)]!,
      year: 2010 + Math.floor(random() * 15),
      ...(random() < 0.3 ? { tags: ["x", random() < 0.5 ? "y" : "z"] } : {}),
    };
    // Keys not in slot order, so ties are broken by key rather than by position.
    records.push(record(`k${((index * 7919) % 100_003).toString().padStart(6, "0")}`, values, metadata));
  }
  return records;
}

/** Queries for both scoring paths: dense, sparse (a handful of components), either side of the sparse cut-off, stored vectors. */
function mixedQueries(records: readonly VectorRecord[], dimension: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const withNonZero = (count: number) => {
    const values = new Float32Array(dimension);
    for (let n = 0; n < count; n++) values[(n * 7 + Math.floor(random() * 7)) % dimension] = random() - 0.5 || 0.25;
    if (values.every((x) => x === 0)) values[0] = 1;
    return values;
  };
  const cutOff = Math.floor(dimension / 4);
  return [
    Float32Array.from({ length: dimension }, () => random() - 0.5),
    Float32Array.from({ length: dimension }, () => random() - 0.5),
    withNonZero(1),
    withNonZero(5),
    withNonZero(Math.max(1, cutOff)),
    withNonZero(cutOff + 1),
    records[17 % records.length]!.vector.slice(),
    records[records.length - 1]!.vector.slice(),
  ];
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

  describe("returns exactly what a naive exact scan returns", () => {
    const filters: (MetadataFilter | undefined)[] = [
      undefined,
      { category: "legal" },
      { year: { $gte: 2021 }, tags: "y" },
      { $or: [{ category: "sales" }, { year: 2010 }] },
      { category: "nobody" },
    ];
    for (const dimension of [384, 37, 3]) {
      it(`over ${dimension} dimensions`, async () => {
        const records = mixedCorpus(2_600, dimension, dimension);
        const target = partition("ns", null, dimension);
        const store = new EmbeddedVectorStore();
        // In several writes, so the partition grows between them.
        for (let start = 0; start < records.length; start += 700) await store.upsert(target, records.slice(start, start + 700));
        // One filter matches a single record: the top k is shorter than k.
        const single = { ...records[5]!, metadata: { ...records[5]!.metadata, category: "unique" } };
        await store.upsert(target, [single]);
        records[5] = single;

        for (const query of mixedQueries(records, dimension, dimension + 1)) {
          for (const filter of [...filters, { category: "unique" }]) {
            const ranking = naiveRanking(records, query, filter);
            for (const topK of [1, 10, 100, 500, 2.7]) {
              expectSameAnswer(store.querySync(target, query, { topK, filter }), ranking.slice(0, clampTopK(topK)));
            }
          }
        }

        // Deleting moves the last slots into the holes; answers must not change with positions.
        const deleted = new Set(records.filter((_, index) => index % 5 === 0).map((item) => item.key));
        await store.deleteKeys(target, [...deleted]);
        const kept = records.filter((item) => !deleted.has(item.key));
        for (const query of mixedQueries(records, dimension, dimension + 2)) {
          expectSameAnswer(store.querySync(target, query, { topK: 50, filter: { category: "finance" } }), naiveQuery(kept, query, 50, { category: "finance" }));
        }
      });
    }

    it("in a partition smaller than topK, and of one record", async () => {
      const store = new EmbeddedVectorStore();
      const target = partition("ns", null, 16);
      const records = mixedCorpus(7, 16, 5);
      await store.upsert(target, records);
      for (const query of mixedQueries(records, 16, 6)) {
        expectSameAnswer(store.querySync(target, query, { topK: 100 }), naiveQuery(records, query, 100));
        expectSameAnswer(store.querySync(target, query, { topK: 100, filter: { year: { $lt: 2017 } } }), naiveQuery(records, query, 100, { year: { $lt: 2017 } }));
      }
      const one = partition("ns", "t", 16);
      await store.upsert(one, [records[3]!]);
      expectSameAnswer(store.querySync(one, records[1]!.vector, { topK: 10 }), naiveQuery([records[3]!], records[1]!.vector, 10));
    });
  });

  it("breaks ties for the last places by key, wherever the tied records sit", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null, 4);
    const keys = Array.from({ length: 40 }, (_, index) => `k${String(index).padStart(2, "0")}`);
    // Written in reverse order, so the smallest keys sit in the last slots.
    await store.upsert(target, [...keys].reverse().map((key) => record(key, vector(1, 1, 0, 0))));
    await store.upsert(target, [record("best", vector(1, 1, 0.1, 0))]);
    const answer = (query: Float32Array) => store.querySync(target, query, { topK: 4 }).map((match) => match.key);
    expect(answer(vector(1, 1, 0, 0))).toEqual(["k00", "k01", "k02", "k03"]);
    expect(answer(vector(1, 1, 1, 0))).toEqual(["best", "k00", "k01", "k02"]);
    // Sparse query (one non-zero component) and dense query alike.
    expect(answer(vector(0, 0, 0, 1))).toEqual(["best", "k00", "k01", "k02"]);
    await store.deleteKeys(target, ["k01"]);
    expect(answer(vector(1, 1, 0, 0))).toEqual(["k00", "k02", "k03", "k04"]);
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

  // Its speed is measured by bench/search-scale.ts and bench/search-latency.ts, not here.
  it("answers a query over 10,000 × 384 vectors with the exact top 10 by cosine similarity", async () => {
    const store = new EmbeddedVectorStore();
    const target = partition("ns", null, 384);
    const vectors = randomVectors(10_000, 384, 11);
    await store.upsert(target, vectors.map((values, index) => record(`k${index}`, values, { even: index % 2 === 0 })));
    const norm = (values: Float32Array) => Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
    const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * b[index]!, 0) / (norm(a) * norm(b));
    for (const query of randomVectors(5, 384, 12)) {
      const expected = vectors
        .map((values, index) => ({ key: `k${index}`, similarity: cosine(query, values) }))
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, 10)
        .map((match) => match.key);
      expect(store.querySync(target, query, { topK: 10 }).map((match) => match.key)).toEqual(expected);
    }
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
