import { describe, expect, it } from "vitest";
import {
  type FidelityRow,
  headingRecall,
  listNumberRecall,
  listNumbers,
  markdownHeadings,
  missedTargets,
  pageBoundaryBreaks,
  runningMatterLeft,
  standaloneTableChunks,
  linesInOrder,
  wordRecall,
} from "../../bench/fidelity/metrics.ts";

const REFERENCE = "# Terms\n\nFor both users' and authors' sake, the GPL requires that modified versions be marked.\n\nSee the rules of precedence here.";

describe("fidelity metrics", () => {
  it("counts words with their repetitions, so a hyphen left at a line end costs both halves", () => {
    expect(wordRecall(REFERENCE, REFERENCE)).toBe(1);
    const split = REFERENCE.replace("precedence", "prece-\ndence");
    const total = REFERENCE.match(/[\p{L}\p{N}]+/gu)!.length;
    expect(wordRecall(REFERENCE, split)).toBeCloseTo((total - 1) / total, 10);
    expect(wordRecall("", "anything")).toBe(1);
  });

  it("finds headings in order, allowing a section number on one side", () => {
    expect(markdownHeadings("# One\ntext\n## Two ##\n#no\n   ### Three")).toEqual(["One", "Two", "Three"]);
    const recall = headingRecall(["ASN.1 syntax", "Naming", "Missing"], ["2.1 ASN.1 syntax", "2.2 Naming", "Other"]);
    expect(recall).toEqual({ found: 2, total: 3, missing: ["Missing"] });
    expect(headingRecall(["Preamble"], ["Preface"]).found).toBe(0);
  });

  it("counts a paragraph break at a page boundary only where the reference's sentence runs on", () => {
    const broken = "# Terms\n\nFor both users' and authors'\n\nsake, the GPL requires that modified versions be marked.\n\nSee the rules of precedence here.";
    const offset = broken.indexOf("sake");
    expect(pageBoundaryBreaks(REFERENCE, broken, [0, offset])).toEqual({ midSentence: 1, broken: 1, boundaries: 1 });
    const kept = broken.replace("authors'\n\nsake", "authors'\nsake");
    expect(pageBoundaryBreaks(REFERENCE, kept, [0, kept.indexOf("sake")])).toEqual({ midSentence: 1, broken: 0, boundaries: 1 });
    // Between two sentences (or paragraphs) a blank line is right.
    const between = broken.replace("authors'\n\nsake", "authors' sake");
    expect(pageBoundaryBreaks(REFERENCE, between, [0, between.indexOf("See")]).broken).toBe(0);
    // A word joined over the boundary is not a break.
    expect(pageBoundaryBreaks(REFERENCE, REFERENCE, [0, REFERENCE.indexOf("cedence")]).midSentence).toBe(0);
  });

  it("reads ordered-list numbers in order and finds the reference's among them", () => {
    const markdown = "0. First\n\n    a) sub\n\n1. Second\n  2) nested\n- bullet\n11. Resumed";
    expect(listNumbers(markdown)).toEqual([0, 1, 2, 11]);
    expect(listNumberRecall([0, 1, 11, 12], [1, 0, 1, 11])).toEqual({ found: 3, total: 4 });
  });

  it("counts the lines whose words read in the reference's order, judging only words it has", () => {
    const reference = "alpha beta gamma delta epsilon";
    expect(linesInOrder(reference, "alpha beta gamma\ndelta epsilon")).toEqual({ inOrder: 2, lines: 2 });
    expect(linesInOrder(reference, "gamma delta alpha beta\nepsilon")).toEqual({ inOrder: 0, lines: 1 });
    expect(linesInOrder(reference, "alpha misread\nbeta gamma")).toEqual({ inOrder: 1, lines: 1 });
  });

  it("counts running headers left and table chunks that carry their header", () => {
    expect(runningMatterLeft("Chapter 2: Syntax 3\ntext\nChapter 4: Reference 17", [/^Chapter \d+: .+ \d+$/])).toBe(2);
    const header = "## Sheet\n\n| A | B |\n| --- | --- |\n";
    expect(standaloneTableChunks([`${header}| 1 | 2 |`, "| 3 | 4 |\n| 5 | 6 |", "prose only", `${header}`])).toEqual({ standalone: 1, withRows: 2 });
  });

  it("passes a row that meets every target and names each one it misses", () => {
    const row: FidelityRow = {
      wordRecall: 0.995,
      headings: { found: 21, total: 23 },
      headingTarget: 0.9,
      pageBreaks: { midSentence: 8, broken: 0 },
      listNumbers: { found: 13, total: 13 },
      wordOrder: null,
      runningMatterLeft: 0,
      tableChunks: { standalone: 22, withRows: 22 },
      expectedFailure: null,
    };
    expect(missedTargets(row)).toEqual([]);
    expect(missedTargets({ ...row, headingTarget: 1 })).toEqual(["heading recall 21/23 < 1"]);
    expect(missedTargets({ ...row, headingTarget: null })).toEqual([]);
    expect(missedTargets({ ...row, wordRecall: 0.98, pageBreaks: { midSentence: 8, broken: 2 }, listNumbers: { found: 0, total: 13 } })).toEqual([
      "word recall 0.980 < 0.99",
      "2 mid-sentence page breaks",
      "list numbers 0/13",
    ]);
    expect(missedTargets({ ...row, runningMatterLeft: 3, tableChunks: { standalone: 1, withRows: 22 }, expectedFailure: false })).toHaveLength(3);
  });
});
