import { describe, expect, it } from "vitest";
import { fuse } from "../../functions/shared/workflows/search.ts";

function listed(...entries: [string, number][]) {
  return entries.map(([id, score]) => ({ documentId: id, runId: "run", sequence: 0, text: id, metadata: {}, score }));
}

const ids = (list: { documentId: string }[]) => list.map((candidate) => candidate.documentId);

describe("hybrid fusion of the semantic and keyword lists", () => {
  const semantic = listed(["a", 0.9], ["b", 0.8], ["c", 0.7]);
  const keyword = listed(["c", 0.8], ["d", 0.4], ["a", 0.2]);

  it("ranks by keyword alone at weight 0, then by similarity for what keyword did not find", () => {
    expect(ids(fuse(semantic, keyword, 0))).toEqual(["c", "d", "a", "b"]);
  });

  it("ranks by similarity alone at weight 1", () => {
    expect(ids(fuse(semantic, keyword, 1)).slice(0, 3)).toEqual(["a", "b", "c"]);
  });

  it("rewards agreement between the lists at an even weight, scores within 0–1, best first", () => {
    // "c" is second by similarity and first by keyword; "a" first by similarity, last by keyword.
    const fused = fuse(listed(["a", 0.9], ["c", 0.85], ["b", 0.7]), keyword, 0.5);
    expect(ids(fused)).toEqual(["c", "a", "d", "b"]);
    for (const [index, candidate] of fused.entries()) {
      expect(candidate.score).toBeGreaterThanOrEqual(0);
      expect(candidate.score).toBeLessThanOrEqual(1);
      if (index > 0) expect(candidate.score).toBeLessThanOrEqual(fused[index - 1]!.score);
    }
  });

  it("keeps a clear keyword winner first where rank fusion would not", () => {
    // Keyword is sure of "x"; the semantic list ranks it last. RRF would put "y" (second in both) first.
    const sure = listed(["x", 20], ["y", 2], ["z", 1]);
    const vague = listed(["z", 0.71], ["y", 0.7], ["x", 0.69]);
    expect(fuse(vague, sure, 0.2)[0]!.documentId).toBe("x");
  });

  it("takes one list as it is when the other is empty", () => {
    expect(ids(fuse([], keyword, 0.5))).toEqual(["c", "d", "a"]);
    expect(ids(fuse(semantic, [], 0.5))).toEqual(["a", "b", "c"]);
  });
});
