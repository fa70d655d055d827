import { describe, expect, it } from "vitest";
import { averagePrecision, meanScores, ndcgAtK, recallAtK, reciprocalRank, referenceBm25 } from "../../bench/ir-metrics.ts";

// Five documents returned; b and d are relevant, and so is f, which was never returned.
const ranking = ["a", "b", "c", "d", "e"];
const judged = new Map([
  ["b", 1],
  ["d", 1],
  ["f", 1],
]);

describe("IR metrics of one ranking, as trec_eval computes them", () => {
  it("average precision averages the precision at each relevant hit over all relevant documents, missed ones counting 0", () => {
    // (1/2 + 2/4) / 3
    expect(averagePrecision(ranking, judged)).toBeCloseTo(1 / 3, 10);
  });

  it("reciprocal rank is one over the rank of the first relevant hit, and 0 without one", () => {
    expect(reciprocalRank(ranking, judged)).toBe(0.5);
    expect(reciprocalRank(["a", "c"], judged)).toBe(0);
  });

  it("recall at k counts the relevant documents in the first k against all relevant ones", () => {
    expect(recallAtK(ranking, judged, 2)).toBeCloseTo(1 / 3, 10);
    expect(recallAtK(ranking, judged, 100)).toBeCloseTo(2 / 3, 10);
  });

  it("nDCG at k divides the discounted gain of the first k by that of the ideal order of all judged documents", () => {
    // DCG@3 = 1/log2(3); ideal = 1 + 1/log2(3) + 1/log2(4)
    expect(ndcgAtK(ranking, judged, 3)).toBeCloseTo(0.63093 / 2.13093, 4);
    // Graded: a is worth 3, c is worth 1; returning c before a loses to the ideal a, c.
    const graded = new Map([
      ["a", 3],
      ["c", 1],
    ]);
    expect(ndcgAtK(["c", "a"], graded, 2)).toBeCloseTo((1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3)), 10);
    expect(ndcgAtK(["a", "c"], graded, 2)).toBe(1);
  });

  it("means are taken over the queries given", () => {
    const scores = meanScores([
      { ranking, judged },
      { ranking: ["x"], judged: new Map([["x", 1]]) },
    ]);
    expect(scores.map).toBeCloseTo((1 / 3 + 1) / 2, 10);
    expect(scores.mrr).toBeCloseTo(0.75, 10);
    expect(scores.recallAt100).toBeCloseTo((2 / 3 + 1) / 2, 10);
  });
});

describe("reference Okapi BM25", () => {
  const search = referenceBm25([
    { id: "1", text: "Apple banana" },
    { id: "2", text: "apple apple cherry" },
    { id: "3", text: "durian" },
  ]);

  it("returns only documents that hold a query term, more occurrences for their length first", () => {
    // Saturated tf at k1 1.2, b 0.75, average length 2: document 1 scores idf * 1.0, document 2 idf * 1.205.
    expect(search("apple", 10)).toEqual(["2", "1"]);
    expect(search("CHERRY!", 10)).toEqual(["2"]);
    expect(search("fig", 10)).toEqual([]);
  });
});
