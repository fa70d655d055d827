import { describe, expect, it } from "vitest";
import { joinPageRanges } from "../../functions/shared/extraction/page-ranges.ts";

describe("joinPageRanges", () => {
  it("moves each range's page offsets to where the range starts in the joined text", () => {
    const joined = joinPageRanges([
      { text: "one\n\ntwo", pageOffsets: [0, 5], firstPage: 1, lastPage: 2, totalPages: 5, notes: [] },
      { text: "three\n\nfour", pageOffsets: [0, 7], firstPage: 3, lastPage: 4, totalPages: 5, notes: [] },
      { text: "five", pageOffsets: [0], firstPage: 5, lastPage: 5, totalPages: 5, notes: [] },
    ]);
    expect(joined.text).toBe("one\n\ntwo\n\nthree\n\nfour\n\nfive");
    expect(joined.pageOffsets).toEqual([0, 5, 10, 17, 23]);
    expect(joined.pageOffsets!.map((offset) => joined.text.slice(offset).split("\n")[0])).toEqual(["one", "two", "three", "four", "five"]);
    expect(joined).toMatchObject({ firstPage: 1, lastPage: 5, totalPages: 5 });
  });

  it("keeps a range without text in place and each note once", () => {
    const joined = joinPageRanges([
      { text: "one", pageOffsets: [0], firstPage: 1, lastPage: 1, totalPages: 3, notes: ["OCR ran in English"] },
      { text: "", pageOffsets: [0], firstPage: 2, lastPage: 2, totalPages: 3, notes: ["page 2: no text layer", "OCR ran in English"] },
      { text: "three", pageOffsets: [0], firstPage: 3, lastPage: 3, totalPages: 3, notes: [] },
    ]);
    expect(joined.text).toBe("one\n\nthree");
    expect(joined.pageOffsets).toEqual([0, 3, 5]);
    expect(joined.notes).toEqual(["OCR ran in English", "page 2: no text layer"]);
  });

  it("refuses an empty list", () => {
    expect(() => joinPageRanges([])).toThrow();
  });
});
