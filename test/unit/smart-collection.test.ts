import { describe, expect, it } from "vitest";
import { convertSmart, parseJudgments } from "../../scripts/convert-smart-collection.ts";

const documents = [
  ".I 1",
  ".T",
  "a national plan",
  "for indexing .",
  ".A",
  "R. A. JENSEN",
  ".T",
  "a national plan for indexing .",
  ".W",
  "the plan is",
  "  presented .",
  ".I 2 ",
  ".W",
  "no title here .",
].join("\n");

describe("converting a collection in the SMART format", () => {
  it("keeps each document's title and abstract, lines joined, authors dropped, a repeated field read once", () => {
    const { documents: converted } = convertSmart(documents, ".I 1\n.W\nplans?\n", "1 1 0 0.000000\n");
    expect(converted).toEqual([
      { id: "1", title: "a national plan for indexing .", text: "a national plan for indexing .\n\nthe plan is presented ." },
      { id: "2", title: "", text: "no title here ." },
    ]);
  });

  it("numbers the queries in file order and reads every judged pair as relevant", () => {
    const { queries, qrels } = convertSmart(documents, ".I 1\n.W\nfirst?\n.I 3\n.W\nsecond\nquestion?\n", "1   2   0   0.000000   \n2 1 0 0\n\n");
    expect(queries).toEqual([
      { id: "1", text: "first?" },
      { id: "2", text: "second question?" },
    ]);
    expect(qrels).toEqual([
      { query: "1", document: "2", relevance: 1 },
      { query: "2", document: "1", relevance: 1 },
    ]);
  });

  it("refuses judgments that name a document the collection does not have", () => {
    expect(() => convertSmart(documents, ".I 1\n.W\nq\n", "1 9 0 0\n")).toThrow(/1 judgments name documents/);
    expect(parseJudgments("  \n")).toEqual([]);
  });
});
