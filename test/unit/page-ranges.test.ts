import { describe, expect, it } from "vitest";
import { joinPageRanges } from "../../functions/shared/extraction/page-ranges.ts";

describe("joinPageRanges", () => {
  it("moves each range's page offsets to where the range starts in the joined text", () => {
    const joined = joinPageRanges([
      { text: "One.\n\nTwo.", pageOffsets: [0, 6], firstPage: 1, lastPage: 2, totalPages: 5, notes: [] },
      { text: "Three.\n\nFour.", pageOffsets: [0, 8], firstPage: 3, lastPage: 4, totalPages: 5, notes: [] },
      { text: "Five.", pageOffsets: [0], firstPage: 5, lastPage: 5, totalPages: 5, notes: [] },
    ]);
    expect(joined.text).toBe("One.\n\nTwo.\n\nThree.\n\nFour.\n\nFive.");
    expect(joined.pageOffsets).toEqual([0, 6, 12, 20, 27]);
    expect(joined.pageOffsets!.map((offset) => joined.text.slice(offset).split("\n")[0])).toEqual(["One.", "Two.", "Three.", "Four.", "Five."]);
    expect(joined).toMatchObject({ firstPage: 1, lastPage: 5, totalPages: 5 });
  });

  it("keeps a range without text in place and each note once", () => {
    const joined = joinPageRanges([
      { text: "One.", pageOffsets: [0], firstPage: 1, lastPage: 1, totalPages: 3, notes: ["OCR ran in English"] },
      { text: "", pageOffsets: [0], firstPage: 2, lastPage: 2, totalPages: 3, notes: ["page 2: no text layer", "OCR ran in English"] },
      { text: "Three.", pageOffsets: [0], firstPage: 3, lastPage: 3, totalPages: 3, notes: [] },
    ]);
    expect(joined.text).toBe("One.\n\nThree.");
    expect(joined.pageOffsets).toEqual([0, 4, 6]);
    expect(joined.notes).toEqual(["OCR ran in English", "page 2: no text layer"]);
  });

  it("continues a paragraph that runs over the break between two ranges, and no other", () => {
    const joined = joinPageRanges([
      { text: "## Terms\n\nThe licence covers the users and", pageOffsets: [0], firstPage: 1, lastPage: 1, totalPages: 3, notes: [] },
      { text: "authors of the work.", pageOffsets: [0], firstPage: 2, lastPage: 2, totalPages: 3, notes: [] },
      { text: "A new paragraph.", pageOffsets: [0], firstPage: 3, lastPage: 3, totalPages: 3, notes: [] },
    ]);
    expect(joined.text).toBe("## Terms\n\nThe licence covers the users and\nauthors of the work.\n\nA new paragraph.");
    expect(joined.pageOffsets!.map((offset) => joined.text.slice(offset, offset + 7))).toEqual(["## Term", "authors", "A new p"]);
  });

  it("refuses an empty list", () => {
    expect(() => joinPageRanges([])).toThrow();
  });
});
