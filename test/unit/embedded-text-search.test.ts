import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedVectorStore } from "../../functions/shared/vector-store/embedded.ts";
import type { VectorRecord } from "../../functions/shared/vector-store/types.ts";
import type { VectorPartition } from "../../functions/shared/domain/partitions.ts";
import { searchTerms } from "../../functions/shared/text/analyser.ts";

const DIM = 4;
const shared: VectorPartition = { namespaceId: "ns", tenantId: null, dimension: DIM };
const tenant: VectorPartition = { namespaceId: "ns", tenantId: "acme", dimension: DIM };

function record(key: string, text: string, metadata: VectorRecord["metadata"] = {}): VectorRecord {
  return { key, text, metadata, vector: Float32Array.from([1, 0.5, 0.25, 0.125]) };
}

const CHUNKS = [
  record("cat", "The cat sat on the mat.", { topic: "pets" }),
  record("dogs", "Dogs chase cats in the garden.", { topic: "pets" }),
  record("quantum", "Quantum computing uses qubits.", { topic: "physics" }),
  record("schrodinger", "A cat is not a qubit, whatever Schrödinger said.", { topic: "physics" }),
  record("tokyo", "東京の天気は晴れです。", { topic: "travel" }),
  record("pizza", "Friday is 🍕 night at the office.", { topic: "food" }),
];

async function keys(store: EmbeddedVectorStore, target: VectorPartition, text: string, topK = 10, filter?: Record<string, unknown>) {
  return (await store.queryText(target, text, { topK, ...(filter ? { filter: filter as never } : {}) })).map((match) => match.key);
}

describe("full-text (BM25) search in the embedded store", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function filled(): Promise<EmbeddedVectorStore> {
    const store = new EmbeddedVectorStore();
    await store.upsert(shared, CHUNKS);
    return store;
  }

  it("scores a chunk with the plain BM25 sum of its query terms, as S3 Vectors does (no bonus for matching more terms)", async () => {
    const store = new EmbeddedVectorStore();
    await store.upsert(shared, [record("a", "apple banana"), record("b", "apple cherry"), record("c", "durian")]);
    const [best] = await store.queryText(shared, "apple banana", { topK: 1 });
    // Okapi BM25, k1 1.2, b 0.75, idf ln(1 + (N - n + 0.5) / (n + 0.5)): 3 chunks of 2, 2 and 1 terms.
    const lengthNorm = 1 - 0.75 + (0.75 * 2) / (5 / 3);
    const termWeight = (1 * 2.2) / (1 + 1.2 * lengthNorm);
    const idf = (holding: number) => Math.log(1 + (3 - holding + 0.5) / (holding + 0.5));
    expect(best!.key).toBe("a");
    expect(best!.score).toBeCloseTo(termWeight * (idf(2) + idf(1)), 6);
  });

  it("ranks by BM25, rarer terms weighing more, and returns only chunks with a query term", async () => {
    const store = await filled();
    const matches = await store.queryText(shared, "qubit cat", { topK: 10 });
    expect(matches[0]!.key).toBe("schrodinger");
    expect(matches.map((match) => match.key).sort()).toEqual(["cat", "dogs", "quantum", "schrodinger"]);
    for (let i = 1; i < matches.length; i++) expect(matches[i]!.score).toBeLessThanOrEqual(matches[i - 1]!.score);
    expect(matches[0]).toMatchObject({ text: CHUNKS[3]!.text, metadata: { topic: "physics" } });
    expect(await keys(store, shared, "zebra")).toEqual([]);
    expect(await keys(store, shared, "?!")).toEqual([]);
  });

  it("matches inflections through the analyser's stemming", async () => {
    const store = await filled();
    expect((await keys(store, shared, "chasing dog"))[0]).toBe("dogs");
  });

  it("finds CJK text by its characters and emoji by the emoji alone", async () => {
    const store = await filled();
    expect(await keys(store, shared, "東京")).toEqual(["tokyo"]);
    expect(await keys(store, shared, "🍕")).toEqual(["pizza"]);
    expect(searchTerms("I ❤️ 🍕")).toEqual(["i", "❤", "🍕"]);
  });

  it("applies the metadata filter before keeping the best k", async () => {
    const store = await filled();
    expect(await keys(store, shared, "cat", 1, { topic: "physics" })).toEqual(["schrodinger"]);
    expect(await keys(store, shared, "cat", 10, { topic: { $ne: "physics" } })).toEqual(expect.arrayContaining(["cat", "dogs"]));
    expect(await keys(store, shared, "cat", 10, { topic: "travel" })).toEqual([]);
  });

  it("keeps partitions apart and clamps topK", async () => {
    const store = await filled();
    await store.upsert(tenant, [record("tenant-cat", "a cat of the tenant")]);
    expect(await keys(store, tenant, "cat")).toEqual(["tenant-cat"]);
    expect(await keys(store, shared, "cat")).not.toContain("tenant-cat");
    expect(await keys(store, { ...shared, namespaceId: "other" }, "cat")).toEqual([]);
    await store.upsert(shared, Array.from({ length: 150 }, (_, index) => record(`many${index}`, `cat number ${index}`)));
    expect(await keys(store, shared, "cat", 500)).toHaveLength(100);
    expect(await keys(store, shared, "cat", 0)).toEqual([]);
  });

  it("scores common terms only on chunks with a rarer term, with the same scores, and scores all when those are too few", async () => {
    const store = new EmbeddedVectorStore();
    const chunks = Array.from({ length: 2_500 }, (_, index) =>
      record(`c${String(index).padStart(4, "0")}`, index < 3 ? `common words and a rare zephyr ${"common ".repeat(index)}` : `common words ${index % 7 === 0 ? "common" : ""}`),
    );
    await store.upsert(shared, chunks);
    const fast = await store.queryText(shared, "common zephyr", { topK: 3 });
    expect(fast.map((match) => match.key).sort()).toEqual(["c0000", "c0001", "c0002"]);
    // All 2,500 chunks scored (the same request, with room for every chunk) give the same top three.
    const whole = await store.queryText(shared, "common zephyr", { topK: 100 });
    expect(whole.slice(0, 3).map((match) => match.key)).toEqual(fast.map((match) => match.key));
    whole.slice(0, 3).forEach((match, index) => expect(match.score).toBeCloseTo(fast[index]!.score, 9));
    expect(whole).toHaveLength(100);
    // Fewer chunks with the rare term than asked for: the common term's chunks follow them.
    const padded = await store.queryText(shared, "common zephyr", { topK: 10 });
    expect(padded.slice(0, 3).map((match) => match.key)).toEqual(fast.map((match) => match.key));
    expect(padded).toHaveLength(10);
    // Only common terms: every chunk holding them is scored.
    expect(await store.queryText(shared, "common words", { topK: 5 })).toHaveLength(5);
  });

  it("follows rewrites and deletes at once", async () => {
    const store = await filled();
    await store.upsert(shared, [record("cat", "Nothing feline here any more.")]);
    expect(await keys(store, shared, "mat")).toEqual([]);
    expect(await keys(store, shared, "feline")).toEqual(["cat"]);
    await store.deleteKeys(shared, ["quantum", "schrodinger"]);
    expect(await keys(store, shared, "qubit")).toEqual([]);
    await store.dropPartition(shared);
    expect(await keys(store, shared, "dog")).toEqual([]);
  });

  it("saves its text index with the snapshot and answers alike after loading, and rebuilds it from an older snapshot", async () => {
    const dir = await mkdtemp(join(tmpdir(), "text-index-"));
    dirs.push(dir);
    const file = join(dir, "vectors.bin");
    const store = await filled();
    await store.deleteKeys(shared, ["dogs"]);
    await store.saveTo(file);
    const restored = new EmbeddedVectorStore();
    expect(await restored.loadFrom(file)).toBe(true);
    for (const query of ["cat", "qubit cat", "東京", "🍕", "garden"]) {
      expect(await restored.queryText(shared, query, { topK: 10 })).toEqual(await store.queryText(shared, query, { topK: 10 }));
    }
    await restored.upsert(shared, [record("new", "a brand new garden")]);
    expect(await keys(restored, shared, "garden")).toEqual(["new"]);

    // A snapshot of the format before full-text search: same layout without the text index.
    const older = new EmbeddedVectorStore();
    await older.upsert(shared, CHUNKS);
    const olderFile = join(dir, "older.bin");
    await older.saveTo(olderFile);
    const bytes = await readFile(olderFile);
    const header = bytes.readUInt32LE(12);
    const vectorsEnd = 16 + header + CHUNKS.length * DIM * 4;
    const legacy = Buffer.concat([Buffer.from("KISVEC01", "ascii"), bytes.subarray(8, vectorsEnd)]);
    await writeFile(olderFile, legacy);
    const migrated = new EmbeddedVectorStore();
    expect(await migrated.loadFrom(olderFile)).toBe(true);
    expect(await migrated.queryText(shared, "qubit cat", { topK: 10 })).toEqual(await older.queryText(shared, "qubit cat", { topK: 10 }));
  });
});
