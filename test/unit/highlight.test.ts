import { describe, expect, it } from "vitest";
import { highlightRanges, queryTerms, snippetWindow } from "../../functions/shared/text/highlight.ts";

const marked = (text: string, query: string) => highlightRanges(text, queryTerms(query)).map(([start, end]) => text.slice(start, end));

describe("highlighting a query's words in a passage", () => {
  it("marks the words keyword search matches: stems and case alike, stop words never", () => {
    expect(marked("Refunds are paid after the parcel is Returned.", "when is my refund returned")).toEqual(["Refunds", "Returned"]);
    expect(marked("Indexing indexes the index.", "indexed")).toEqual(["Indexing", "indexes", "index"]);
    expect(marked("The cat sat on the mat.", "the on")).toEqual([]);
  });

  it("gives offsets into the text as written, past characters that fold to something longer", () => {
    const text = "ﬁle Größe: ＡＢＣ and Größe";
    const ranges = highlightRanges(text, queryTerms("größe abc"));
    expect(ranges.map(([start, end]) => text.slice(start, end))).toEqual(["Größe", "ＡＢＣ", "Größe"]);
  });

  it("marks each character of a CJK query on its own, as the analyser splits them", () => {
    expect(marked("退款将在十四天内支付。", "退款")).toEqual(["退", "款"]);
  });
});

describe("choosing the snippet", () => {
  const filler = (words: number, word = "lorem") => Array.from({ length: words }, () => word).join(" ");

  it("is the whole passage when it fits", () => {
    expect(snippetWindow("Short passage.", [], 300)).toEqual([0, 14]);
  });

  it("centres on the stretch holding the most distinct query words, cut between words", () => {
    const text = `${filler(100)} refunds ${filler(10)} warehouse parcel ${filler(100)} refunds ${filler(100)}`;
    const ranges = highlightRanges(text, queryTerms("refund parcel warehouse"));
    const [start, end] = snippetWindow(text, ranges, 300);
    const snippet = text.slice(start, end);
    expect(end - start).toBeLessThanOrEqual(300);
    expect(snippet).toContain("refunds lorem");
    expect(snippet).toContain("warehouse parcel");
    expect(text.indexOf("refunds")).toBeGreaterThan(start);
    expect(/^\s|\s$/.test(snippet)).toBe(false);
    expect(text[start - 1]).toBe(" ");
    expect(text[end]).toBe(" ");
  });

  it("starts at the beginning when no word matches", () => {
    const text = filler(200);
    const [start, end] = snippetWindow(text, [], 300);
    expect(start).toBe(0);
    expect(end).toBeLessThanOrEqual(300);
    expect(text[end]).toBe(" ");
  });

  it("never cuts a character outside the Basic Multilingual Plane in two", () => {
    const text = "😀".repeat(400);
    const [start, end] = snippetWindow(text, [], 301);
    expect(start % 2).toBe(0);
    expect(end % 2).toBe(0);
  });
});

describe("where a snippet starts", () => {
  it("starts at the beginning of the sentence holding the words when that sentence begins in the lead-in", () => {
    const text = `${"Parcels are inspected on arrival and a note is sent. ".repeat(10)}Refunds are paid within 14 days. ${"Gift cards cannot be exchanged. ".repeat(10)}`;
    const [start] = snippetWindow(text, highlightRanges(text, queryTerms("refunds paid")), 300);
    expect(text.slice(start)).toMatch(/^[A-Z]/);
    expect(text.slice(start - 2, start)).toBe(". ");
  });
});
