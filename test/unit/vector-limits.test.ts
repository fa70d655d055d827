import { describe, expect, it } from "vitest";
import { embedLocal } from "../../functions/shared/embedding/providers/local-hash.ts";
import { EmbeddedVectorStore } from "../../functions/shared/vector-store/embedded.ts";
import { isZeroVector, metadataViolation, S3_VECTORS_LIMITS } from "../../functions/shared/vector-store/limits.ts";
import { assertRoomForPartition, PartitionCeilingError } from "../../functions/shared/vector-store/quota.ts";
import type { VectorPartition } from "../../functions/shared/domain/partitions.ts";
import { describeUsage } from "../../scripts/vector-indexes.ts";

const DIM = 4;
const partition = (namespaceId: string, tenantId: string | null = null): VectorPartition => ({ namespaceId, tenantId, dimension: DIM });
const record = (key: string, values: number[], metadata: Record<string, string | number> = {}) => ({ key, vector: Float32Array.from(values), metadata, text: key });

describe("no zero vectors", () => {
  it.each(["!!! ??? ...", "🙂🎉🚀", "→ ← ↑", "— § ¶"])("the LOCAL embedder gives %s a direction", (text) => {
    const { vector } = embedLocal(text);
    expect(isZeroVector(vector)).toBe(false);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
  });

  it("the LOCAL embedder still separates different symbol-only texts and ranks equal ones equal", () => {
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);
    expect(dot(embedLocal("🙂🙂").vector, embedLocal("🙂🙂").vector)).toBeCloseTo(1, 5);
    expect(dot(embedLocal("🙂🙂").vector, embedLocal("!!!").vector)).toBeLessThan(0.5);
  });

  it("the embedded store refuses a zero vector on write and on query, as S3 Vectors does", async () => {
    const store = new EmbeddedVectorStore();
    await expect(store.upsert(partition("ns1"), [record("a", [1, 0, 0, 0]), record("b", [0, 0, 0, 0])])).rejects.toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("Zero vectors are not allowed"),
    });
    expect(store.size(partition("ns1"))).toBe(0);
    await store.upsert(partition("ns1"), [record("a", [1, 0, 0, 0])]);
    await expect(store.query(partition("ns1"), new Float32Array(DIM), { topK: 3 })).rejects.toMatchObject({ name: "ValidationException" });
  });
});

describe("metadata limits", () => {
  it("counts keys and filterable bytes as S3 Vectors does (text is non-filterable)", () => {
    const keys = Object.fromEntries(Array.from({ length: S3_VECTORS_LIMITS.maxMetadataKeys + 1 }, (_, index) => [`k${index}`, 1]));
    expect(metadataViolation(keys)).toMatch(/at most 50 keys/);
    expect(metadataViolation({ big: "x".repeat(2100) })).toMatch(/Filterable metadata must have at most 2048 bytes/);
    expect(metadataViolation({ text: "x".repeat(30_000), small: "y" })).toBeUndefined();
  });

  it("the embedded store refuses a record over the limits and writes none of its batch", async () => {
    const store = new EmbeddedVectorStore();
    await expect(store.upsert(partition("ns2"), [record("a", [1, 0, 0, 0]), record("b", [0, 1, 0, 0], { big: "x".repeat(2100) })])).rejects.toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("Invalid record for key 'b'"),
    });
    expect(store.size(partition("ns2"))).toBe(0);
  });
});

describe("the index quota", () => {
  it("the embedded store counts an index per partition and a registry per namespace, and refuses past its quota", async () => {
    const store = new EmbeddedVectorStore({ maxIndexes: 3 });
    await store.upsert(partition("ns1"), [record("a", [1, 0, 0, 0])]);
    expect(await store.countIndexes()).toBe(2);
    await store.upsert(partition("ns1", "t1"), [record("a", [1, 0, 0, 0])]);
    expect(await store.countIndexes()).toBe(3);
    await expect(store.upsert(partition("ns2"), [record("a", [1, 0, 0, 0])])).rejects.toMatchObject({ name: "ServiceQuotaExceededException" });
    await store.upsert(partition("ns1", "t1"), [record("b", [0, 1, 0, 0])]);
  });

  it("admission refuses a new partition past the ceiling and admits existing ones", async () => {
    const previous = process.env.VECTOR_INDEX_CEILING;
    process.env.VECTOR_INDEX_CEILING = "3";
    try {
      const store = new EmbeddedVectorStore();
      await store.upsert(partition("ns1"), [record("a", [1, 0, 0, 0])]);
      await assertRoomForPartition(store, { namespaceId: "ns1", tenantId: "t1" });
      await store.upsert(partition("ns1", "t1"), [record("a", [1, 0, 0, 0])]);
      await assertRoomForPartition(store, { namespaceId: "ns1", tenantId: "t1" });
      const refused = await assertRoomForPartition(store, { namespaceId: "ns1", tenantId: "t2" }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(PartitionCeilingError);
      expect((refused as Error).message).toMatch(/holds 3 indexes and admits new namespace\/tenant partitions up to 3/);
    } finally {
      if (previous === undefined) delete process.env.VECTOR_INDEX_CEILING;
      else process.env.VECTOR_INDEX_CEILING = previous;
    }
  });

  it("the operator command describes the usage against ceiling and quota", () => {
    expect(describeUsage({ indexes: 9_000, ceiling: 9_500, quota: 10_000 })).toEqual([
      "indexes:  9000 (90.0% of the bucket quota)",
      "ceiling:  9500 (new namespace/tenant partitions are refused with 409 past it)",
      "quota:    10000 indexes per vector bucket (S3 Vectors)",
      "room:     about 500 more indexes: one per new tenant of a namespace, plus one per new namespace",
    ]);
  });
});
