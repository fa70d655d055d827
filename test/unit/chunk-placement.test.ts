import { describe, expect, it } from "vitest";
import { chunkPlacements } from "../../functions/shared/workflows/ingestion/chunk-placement.ts";

const chunk = (text: string, start: number, page?: number) => ({ text, start, end: start + text.length, ...(page ? { page } : {}) });

describe("chunk placement", () => {
  it("gives each chunk the slide it starts in, judged at its first visible character", () => {
    const sections = [{ offset: 0, metadata: { slide: 1 } }, { offset: 20, metadata: { slide: 2 } }, { offset: 40, metadata: { slide: 3 } }];
    const placements = chunkPlacements([chunk("## One", 0), chunk("\n\n## Two", 18), chunk("more of two", 30), chunk("## Three", 40)], { sections });
    expect(placements).toEqual([{ slide: 1 }, { slide: 2 }, { slide: 2 }, { slide: 3 }]);
  });

  it("numbers pages from the extracted range's first page and cuts long sheet names", () => {
    const sections = [{ offset: 0, metadata: { sheet: "S".repeat(150) } }];
    const [placement] = chunkPlacements([chunk("cell", 0, 2)], { firstPage: 11, sections });
    expect(placement).toEqual({ page_number: 12, sheet: "S".repeat(100) });
  });

  it("leaves text before the first section and unpaged text unplaced", () => {
    expect(chunkPlacements([chunk("preface", 0)], { sections: [{ offset: 10, metadata: { slide: 1 } }] })).toEqual([{}]);
  });

  it("says how much of a chunk's text repeats its table's header, and places the chunk by the rest", () => {
    const header = "## Sheet\n\n| A |\n| --- |\n";
    const sections = [{ offset: 0, metadata: { sheet: "Sheet" } }, { offset: 50, metadata: { sheet: "Next" } }];
    const repeated = { text: `${header}\n\n## Next`, start: 48, end: 57, repeated: header.length };
    expect(chunkPlacements([chunk("## Sheet", 0), repeated], { sections })).toEqual([{ sheet: "Sheet" }, { sheet: "Next", repeated_header: header.length }]);
  });
});
