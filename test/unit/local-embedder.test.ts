import { describe, expect, it } from "vitest";
import { embedAll, embedderFor } from "../../functions/shared/embedding/index.ts";
import { embedLocal, LOCAL_DIMENSION, LocalHashEmbedder } from "../../functions/shared/embedding/providers/local-hash.ts";
import { stem, tokenize } from "../../functions/shared/text/analyser.ts";

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

function norm(vector: Float32Array): number {
  return Math.sqrt(cosine(vector, vector));
}

const DOCUMENTS = [
  "To reset your password, open the account settings page and choose the reset password link sent by email.",
  "Our quarterly revenue grew by twelve percent thanks to strong sales in the European market.",
  "The recipe needs two cups of flour, three eggs, sugar and a pinch of salt; bake for forty minutes.",
  "Kubernetes schedules containers onto nodes and restarts pods that fail their health checks.",
  "The migratory birds leave the northern wetlands in autumn and fly thousands of kilometres south.",
  "Photosynthesis converts sunlight, water and carbon dioxide into glucose and oxygen in plant leaves.",
  "The football match ended in a draw after a late penalty in the ninety-second minute.",
  "Invoices are generated on the first day of each month and can be downloaded as PDF files.",
  "The museum exhibition features impressionist paintings on loan from private collections.",
  "Volcanic eruptions release ash and sulfur dioxide that can cool the global climate for years.",
  "Tides are caused mainly by the gravitational pull of the moon on the oceans of the earth.",
];

describe("local hash embedder", () => {
  it("ranks the document that shares the query's words above ten unrelated ones", async () => {
    const embedder = new LocalHashEmbedder();
    const { vectors } = await embedder.embedDocuments(DOCUMENTS);
    const { vector: query } = await embedder.embedQuery("how do I reset my account password?");
    const scores = vectors.map((vector) => cosine(query, vector));
    const best = scores.indexOf(Math.max(...scores));
    expect(best).toBe(0);
    const others = scores.filter((_, index) => index !== 0);
    expect(scores[0]! - Math.max(...others)).toBeGreaterThan(0.2);
  });

  it("finds each document from a paraphrase that reuses some of its words", async () => {
    const embedder = new LocalHashEmbedder();
    const { vectors } = await embedder.embedDocuments(DOCUMENTS);
    const queries: [string, number][] = [
      ["download monthly invoice as pdf", 7],
      ["containers and pods restarted by kubernetes", 3],
      ["birds flying south in autumn", 4],
      ["moon gravity causes tides", 10],
    ];
    for (const [text, expected] of queries) {
      const query = embedLocal(text).vector;
      const scores = vectors.map((vector) => cosine(query, vector));
      expect(scores.indexOf(Math.max(...scores)), text).toBe(expected);
    }
  });

  it("gives identical texts a cosine of 1 and unit-length vectors of 384 dimensions", () => {
    const a = embedLocal("Vector search with hashed features");
    const b = embedLocal("Vector search with hashed features");
    expect(a.vector).toHaveLength(LOCAL_DIMENSION);
    expect(norm(a.vector)).toBeCloseTo(1, 5);
    expect(cosine(a.vector, b.vector)).toBeCloseTo(1, 5);
  });

  it("is deterministic across instances and calls", async () => {
    const first = await new LocalHashEmbedder().embedQuery("deterministic output, every time");
    const second = await new LocalHashEmbedder().embedDocuments(["deterministic output, every time"]);
    expect(Array.from(first.vector)).toEqual(Array.from(second.vectors[0]!));
  });

  it("returns a zero vector without NaN only for text with no characters but whitespace", () => {
    for (const text of ["", "   "]) {
      const { vector } = embedLocal(text);
      expect(vector).toHaveLength(LOCAL_DIMENSION);
      expect(vector.every((value) => value === 0)).toBe(true);
    }
  });

  it("gives stop-word-only text a unit vector from its characters (a zero vector has no direction)", () => {
    const { vector } = embedLocal("the and of to");
    expect(vector.every((value) => Number.isFinite(value))).toBe(true);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
  });

  it("treats inflections of a word as the same word", () => {
    expect(new Set(["index", "indexes", "indexed", "indexing"].map(stem)).size).toBe(1);
    expect(new Set(["run", "runs", "running"].map(stem)).size).toBe(1);
    expect(new Set(["create", "created", "creating", "creates"].map(stem)).size).toBe(1);
    expect(new Set(["study", "studies", "studied"].map(stem)).size).toBe(1);
    expect(stem("status")).toBe("status");
    expect(stem("analysis")).toBe("analysis");
    const a = embedLocal("indexing documents").vector;
    const b = embedLocal("the indexed document").vector;
    expect(cosine(a, b)).toBeGreaterThan(0.95);
  });

  it("splits CJK text into characters and keeps other scripts as words", () => {
    expect(tokenize("東京タワー")).toEqual(["東", "京", "タ", "ワ", "ー"]);
    expect(tokenize("Café NAÏVE abc漢字 x1y2")).toEqual(["café", "naïve", "abc", "漢", "字", "x1y2"]);
    const docs = ["東京タワーは東京都港区にある電波塔です", "大阪城は大阪市中央区にある城です"].map((text) => embedLocal(text).vector);
    const query = embedLocal("東京タワーはどこ").vector;
    expect(cosine(query, docs[0]!)).toBeGreaterThan(cosine(query, docs[1]!));
  });

  it("counts every word token, stop words included", async () => {
    expect(embedLocal("The cat sat on the mat").tokens).toBe(6);
    const { tokens } = await new LocalHashEmbedder().embedDocuments(["one two", "three", ""]);
    expect(tokens).toBe(3);
  });

  // Throughput (chunks per second) is a benchmark's business (bench/ingest-e2e.ts), not a test's.
  it("embeds a batch of 2 KB chunks to one unit vector each, the same as one at a time", async () => {
    const vocabulary = "search index vector document chunk embedding tenant namespace query result score filter metadata".split(" ");
    let seed = 7;
    const texts = Array.from({ length: 500 }, () => {
      let text = "";
      while (text.length < 2048) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        text += `${vocabulary[seed % vocabulary.length]} `;
      }
      return text;
    });
    const { vectors } = await new LocalHashEmbedder().embedDocuments(texts);
    expect(vectors).toHaveLength(500);
    for (const index of [0, 250, 499]) {
      expect(Array.from(vectors[index]!)).toEqual(Array.from(embedLocal(texts[index]!).vector));
      expect(cosine(vectors[index]!, vectors[index]!)).toBeCloseTo(1, 5);
    }
  });

  it("is what embedderFor returns for the LOCAL provider", async () => {
    const embedder = await embedderFor({ provider: "LOCAL", model: "local-hash-384" });
    expect(embedder).toBeInstanceOf(LocalHashEmbedder);
    expect(embedder.dimension).toBe(384);
  });

  it("embedAll batches by maxBatch, keeps order and reports each batch", async () => {
    const embedder = new LocalHashEmbedder();
    const texts = Array.from({ length: embedder.maxBatch * 2 + 5 }, (_, index) => `document number ${index}`);
    const batches: { offset: number; size: number; tokens: number }[] = [];
    const result = await embedAll(embedder, texts, (batch) => {
      batches.push({ offset: batch.offset, size: batch.vectors.length, tokens: batch.tokens });
    });
    expect(batches.map(({ offset, size }) => [offset, size])).toEqual([
      [0, embedder.maxBatch],
      [embedder.maxBatch, embedder.maxBatch],
      [embedder.maxBatch * 2, 5],
    ]);
    expect(result.vectors).toHaveLength(texts.length);
    expect(Array.from(result.vectors[300]!)).toEqual(Array.from(embedLocal(texts[300]!).vector));
    expect(result.tokens).toBe(texts.length * 3);
    expect(batches.reduce((sum, batch) => sum + batch.tokens, 0)).toBe(result.tokens);
  });
});
