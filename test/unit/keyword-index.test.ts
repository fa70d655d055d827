import { describe, expect, it } from "vitest";
import { buildPartitionIndex, buildSegment, rankBm25 } from "../../functions/shared/keyword-index/bm25.ts";
import type { ChunksFile } from "../../functions/shared/domain/chunks.ts";

function chunksFile(texts: string[]): ChunksFile {
  return {
    metadata: { topic: "test" },
    total_chunks: texts.length,
    total_characters: texts.join("").length,
    chunks: texts.map((text, sequence) => ({ id: `d#${sequence}`, text, metadata: { sequence_number: sequence } })),
  };
}

describe("BM25 over a partition's inverted index", () => {
  const index = buildPartitionIndex([
    buildSegment("doc_a", "run1", chunksFile(["The cat sat on the mat.", "Dogs chase cats in the garden."])),
    buildSegment("doc_b", "run1", chunksFile(["Quantum computing uses qubits.", "A cat is not a qubit, whatever Schrödinger said."])),
  ]);

  it("ranks chunks by relevance, rarer terms weighing more", () => {
    const hits = [...rankBm25(index, "qubit cat")];
    expect(hits[0]).toMatchObject({ documentId: "doc_b", sequence: 1 });
    expect(hits.map((hit) => `${hit.documentId}#${hit.sequence}`)).toContain("doc_a#0");
    for (let i = 1; i < hits.length; i += 1) expect(hits[i]!.bm25).toBeLessThanOrEqual(hits[i - 1]!.bm25);
  });

  it("matches inflections through stemming and carries merged metadata", () => {
    const [first] = [...rankBm25(index, "chasing dog")];
    expect(first).toMatchObject({ documentId: "doc_a", sequence: 1, metadata: { topic: "test", sequence_number: 1 } });
  });

  it("returns nothing for unknown words or an empty partition", () => {
    expect([...rankBm25(index, "zebra")]).toEqual([]);
    expect([...rankBm25(buildPartitionIndex([]), "cat")]).toEqual([]);
  });
});
