import { describe, expect, it } from "vitest";
import { chunkId, parseChunkId } from "../../functions/shared/domain/chunks.ts";

describe("chunk ids", () => {
  it("reads back the document and sequence chunkId wrote", () => {
    expect(parseChunkId(chunkId("doc_a1-B_2", 0))).toEqual({ documentId: "doc_a1-B_2", sequence: 0 });
    expect(parseChunkId(chunkId("doc_x", 1234567))).toEqual({ documentId: "doc_x", sequence: 1234567 });
  });

  it("refuses what chunkId does not build: a vector key, no sequence, no document, a sequence not all digits", () => {
    for (const id of ["doc_x#run_1#3", "doc_x", "doc_x#", "#3", "doc_x#-1", "doc_x# 3", "doc_x#3 ", "doc_x#1e3", "doc_x#0x10", ""]) {
      expect(parseChunkId(id), id).toBeNull();
    }
  });
});
