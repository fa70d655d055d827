import { describe, expect, it } from "vitest";
import {
  assignHeadingsByType,
  continuesAcrossPages,
  findTitleLines,
  isBoldFontName,
  type LayoutLine,
  LigatureOrder,
  lineEndHyphen,
  lineText,
  WordStatistics,
} from "../../functions/shared/extraction/pdf-layout.ts";
import { textContinues } from "../../functions/shared/extraction/paragraph-rules.ts";

/** A line of body text at 12 pt unless told otherwise; y counts down the page 14 units a line. */
function line(text: string, overrides: Partial<LayoutLine> = {}): LayoutLine {
  return { text, y: 700, size: 12, left: 72, right: 72 + text.length * 6, font: "body", heading: 0, ...overrides };
}

function page(lines: readonly (string | Partial<LayoutLine> & { text: string })[], top = 700): LayoutLine[] {
  let y = top;
  return lines.map((entry) => {
    const spec = typeof entry === "string" ? { text: entry } : entry;
    const made = line(spec.text, { y, ...spec });
    y -= (spec.size ?? 12) > 12 ? 30 : 14;
    return made;
  });
}

const prose = (words: number, seed = 1) =>
  Array.from({ length: words }, (_, index) => ["licence", "work", "source", "program", "copy", "terms", "users", "rights"][(index * 7 + seed) % 8]).join(" ");

describe("headings from the type", () => {
  const names = new Map([["body", "ABCDEF+LiberationSerif"], ["bold", "ABCDEF+LiberationSerif-Bold"], ["big", "ABCDEF+LiberationSans-Bold"]]);
  const fontName = (font: string) => names.get(font);

  it("takes a rare larger style for headings even when it is only a little larger than the text (21 over 18 pt)", () => {
    const pages = [
      page([{ text: "Preamble", size: 21, font: "big" }, ...Array.from({ length: 12 }, (_, index) => ({ text: prose(14, index), size: 18 }))]),
      page([{ text: "0. Definitions.", size: 21, font: "big" }, ...Array.from({ length: 12 }, (_, index) => ({ text: prose(14, index + 3), size: 18 }))]),
    ];
    assignHeadingsByType({ pages, fontName });
    expect(pages.flat().filter((entry) => entry.heading > 0).map((entry) => [entry.text, entry.heading])).toEqual([
      ["Preamble", 2],
      ["0. Definitions.", 2],
    ]);
  });

  it("ranks heading styles by size into levels, the largest a title when it is well above the text", () => {
    const pages = [
      page([
        { text: "GNU General Public License", size: 24, font: "big" },
        { text: "Terms and conditions", size: 16, font: "big" },
        ...Array.from({ length: 20 }, (_, index) => prose(12, index)),
        { text: "How to apply these terms", size: 16, font: "big" },
        ...Array.from({ length: 20 }, (_, index) => prose(12, index + 1)),
      ]),
    ];
    assignHeadingsByType({ pages, fontName });
    expect(pages[0]!.filter((entry) => entry.heading > 0).map((entry) => entry.heading)).toEqual([1, 2, 2]);
  });

  it("takes a bold line at the text's size for a heading only when it stands apart from the text", () => {
    const pages = [
      page([
        { text: "NAME", font: "bold", left: 36 },
        { text: "find - search for files in a directory hierarchy", left: 72 },
        { text: "DESCRIPTION", font: "bold", left: 36, y: 640 },
        ...Array.from({ length: 10 }, (_, index) => ({ text: prose(12, index), y: 626 - index * 14 })),
        { text: "-depth", font: "bold", y: 480 },
        { text: "Process each directory's contents before the directory itself.", left: 108, y: 466 },
      ]),
    ];
    assignHeadingsByType({ pages, fontName });
    expect(pages[0]!.filter((entry) => entry.heading > 0).map((entry) => entry.text)).toEqual(["NAME", "DESCRIPTION"]);
  });

  it("leaves a document set in one type without headings, and never makes a long sentence one", () => {
    const pages = [page([...Array.from({ length: 10 }, (_, index) => prose(12, index)), { text: `${prose(30)}.`, size: 16, font: "big" }])];
    assignHeadingsByType({ pages, fontName });
    expect(pages[0]!.every((entry) => entry.heading === 0)).toBe(true);
  });

  it("reads bold from font names, TeX's included", () => {
    for (const name of ["ABCDEF+LiberationSerif-Bold", "Times-Bold", "Arial,Bold", "NotoSans-SemiBold", "ECEDAZ+CMBX12", "LCHKSO+CMB10"]) expect(isBoldFontName(name)).toBe(true);
    for (const name of ["ABCDEF+LiberationSerif", "Times-Roman", "PWNLKT+CMR10", "HASPPL+CMTT12", "Helvetica-Oblique", undefined]) expect(isBoldFontName(name)).toBe(false);
  });
});

describe("paragraphs across page breaks", () => {
  const margin = 540;

  it("runs on when the sentence does: next page in lower case, an open ending, or a word that would not have fitted", () => {
    expect(continuesAcrossPages(line("For both users' and authors'", { right: 400 }), line("sake, the GPL requires"), margin)).toBe(true);
    expect(continuesAcrossPages(line("LIABLE TO YOU FOR DAMAGES, INCLUDING ANY INCIDENTAL OR", { right: 420 }), line("CONSEQUENTIAL DAMAGES"), margin)).toBe(true);
    expect(continuesAcrossPages(line("THE PROGRAM AS PERMITTED", { right: 520 }), line("ABOVE, BE LIABLE TO YOU"), margin)).toBe(true);
    expect(continuesAcrossPages(line("find / \\", { right: 120 }), line("\\( -size +100M \\)"), margin)).toBe(true);
  });

  it("starts a new paragraph after a sentence end, a short last line, a heading, or before a list item", () => {
    expect(continuesAcrossPages(line("the end of the paragraph.", { right: 540 }), line("the next one"), margin)).toBe(false);
    expect(continuesAcrossPages(line("A short closing line", { right: 200 }), line("Another paragraph"), margin)).toBe(false);
    expect(continuesAcrossPages(line("Terms", { heading: 2 }), line("and conditions"), margin)).toBe(false);
    expect(continuesAcrossPages(line("the following", { right: 540 }), line("• a bullet"), margin)).toBe(false);
    expect(continuesAcrossPages(undefined, line("text"), margin)).toBe(false);
  });

  it("decides from the text alone between page ranges", () => {
    expect(textContinues("## Terms\n\nThe licence covers users and", "authors alike.")).toBe(true);
    expect(textContinues("The licence ends here.", "and so on")).toBe(false);
    expect(textContinues("A title", "## Next")).toBe(false);
    expect(textContinues("Some words", "Capitalised start")).toBe(false);
  });
});

describe("hyphens at line ends", () => {
  function statistics(...lines: string[]): WordStatistics {
    const counted = new WordStatistics();
    for (const text of lines) counted.add(text);
    return counted;
  }

  it("joins a word split at the margin, and keeps the hyphen of a compound", () => {
    const stats = statistics("the rules of precedence apply", "a well known result", "information is kept", "non-interactive use");
    expect(lineEndHyphen("according to the rules of prece-", "dence (see section OPERATORS)", stats)).toBe("word");
    expect(lineEndHyphen("a useful source of infor-", "mation about it", stats)).toBe("word");
    expect(lineEndHyphen("this is a well-", "known fact", stats)).toBe("compound");
    expect(lineEndHyphen("for non-", "interactive use", stats)).toBe("compound");
    expect(lineEndHyphen("named Reed-", "Solomon codes", stats)).toBe("compound");
  });

  it("lets the document's own spelling decide over the word test", () => {
    expect(lineEndHyphen("the file-", "name is", statistics("a filename here", "the filename there"))).toBe("word");
    expect(lineEndHyphen("the file-", "name is", statistics("a file-name here", "file and name"))).toBe("compound");
  });

  it("leaves lines that do not end in a split word alone", () => {
    const stats = statistics("words");
    expect(lineEndHyphen("an em dash —", "then more", stats)).toBeNull();
    expect(lineEndHyphen("a minus -", "1", stats)).toBeNull();
    expect(lineEndHyphen("plain line", "next line", stats)).toBeNull();
  });
});

describe("right-to-left lines", () => {
  it("reads the runs of an Arabic line from the right, keeping a Latin stretch in its own order", () => {
    // Drawn left to right: "مراسلة" (rightmost, read first), then the address, then "الرجاء" ... as a
    // right-to-left writer lays out "الرجاء مراسلة apt@debian.org شكرا".
    const runs = [
      { text: "شكرا", x: 10, width: 30 },
      { text: "apt@debian.org", x: 45, width: 80 },
      { text: "مراسلة", x: 130, width: 40 },
      { text: "الرجاء", x: 175, width: 40 },
    ];
    expect(lineText(runs, 2)).toBe("الرجاء مراسلة apt@debian.org شكرا");
  });

  it("leaves left-to-right lines in drawing order", () => {
    const runs = [
      { text: "Hello", x: 10, width: 30 },
      { text: "world", x: 44, width: 30 },
      { text: "שלום", x: 80, width: 20 },
    ];
    expect(lineText(runs, 2)).toBe("Hello world שלום");
  });
});

describe("lam-alef ligatures", () => {
  it("puts a ligature's two letters back in order where pdf.js reversed them with the run", () => {
    // "الأوساط" drawn right to left: ط ا س و, the ligature glyph (its letters written "لأ"), ا.
    const order = new LigatureOrder(["ط", "ا", "س", "و", "لأ", "ا", " ", "ل", "ك"]);
    // pdf.js reverses the drawn letters one by one: the ligature comes out "أل".
    const reversed = [..."طاسولأا"].reverse().join("");
    expect(reversed).toBe("األوساط");
    expect(order.restore(reversed)).toBe("الأوساط");
    // Text the page does not draw, and left-to-right text, stay as they are.
    expect(order.restore("كلمة")).toBe("كلمة");
    expect(order.restore("abc")).toBe("abc");
    expect(new LigatureOrder(["ا", "ل"]).needed).toBe(false);
  });
});

describe("outline titles on the page", () => {
  it("finds a title after its section number or label, and over two lines", () => {
    const lines = page(["Chapter 2: ASN.1 structure handling 3", "2.1 ASN.1 syntax", "The parser is case sensitive.", "Appendix A Copying", "Information", "text"]);
    expect(findTitleLines(lines, "ASN.1 syntax")).toEqual({ index: 1, count: 1 });
    expect(findTitleLines(lines, "A Copying Information")).toEqual({ index: 3, count: 2 });
    expect(findTitleLines(lines, "Function reference")).toBeNull();
  });
});
