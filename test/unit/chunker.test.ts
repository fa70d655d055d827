import { describe, expect, it } from "vitest";
import {
  type ChunkOptions,
  type TextChunk,
  DEFAULT_CHUNK_OPTIONS,
  chunkText,
} from "../../functions/shared/text/chunker.ts";
import { seededRandom } from "../support/seeded-random.ts";

// ---------------------------------------------------------------------------------------------
// Helpers

type Random = () => number;

const between = (random: Random, low: number, high: number): number =>
  low + Math.floor(random() * (high - low + 1));
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const VOCABULARY = (
  "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa " +
  "quebec romeo sierra tango uniform victor whiskey xray yankee zulu a an the of to in is it on by " +
  "ingestion boundary paragraph throughput idempotency serialization"
).split(" ");

function sentence(random: Random): string {
  const words: string[] = [];
  for (let i = between(random, 3, 14); i > 0; i--) words.push(pick(random, VOCABULARY));
  const first = words[0] ?? "it";
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return `${words.join(" ")}${pick(random, [".", ".", ".", "?", "!"])}`;
}

function paragraph(random: Random, sentences = between(random, 1, 8)): string {
  const parts: string[] = [];
  for (let i = 0; i < sentences; i++) parts.push(sentence(random));
  return parts.join(" ");
}

interface GeneratedMarkdown {
  text: string;
  /** Start offsets of every line that belongs to a heading (both lines of a setext heading). */
  headingLines: Set<number>;
  /** Start offsets of headings that follow body text, where by_title must start a new chunk. */
  sectionStarts: number[];
}

/** Realistic Markdown that records where its headings are, so tests need not parse it back. */
function randomMarkdown(random: Random, approximateLength: number): GeneratedMarkdown {
  let text = "";
  const headingLines = new Set<number>();
  const sectionStarts: number[] = [];
  let bodySinceHeading = false;
  const blankLines = (): string => pick(random, ["\n\n", "\n\n", "\n\n\n", "\n \n", "\n\n"]);

  while (text.length < approximateLength) {
    const roll = random();
    if (roll < 0.2) {
      const title = paragraph(random, 1).slice(0, between(random, 5, 40)).trimEnd() || "Title";
      if (bodySinceHeading) sectionStarts.push(text.length);
      headingLines.add(text.length);
      if (random() < 0.25) {
        const underlineStart = text.length + title.length + 1;
        headingLines.add(underlineStart);
        text += `${title}\n${pick(random, ["===", "---", "========"])}`;
      } else {
        text += `${"#".repeat(between(random, 1, 6))} ${title}`;
      }
      bodySinceHeading = false;
    } else if (roll < 0.7) {
      text += random() < 0.1 ? paragraph(random, between(random, 10, 30)) : paragraph(random);
      bodySinceHeading = true;
    } else if (roll < 0.85) {
      const items: string[] = [];
      for (let i = between(random, 2, 6); i > 0; i--) {
        items.push(`${pick(random, ["-", "*", "1."])} ${sentence(random)}`);
      }
      text += items.join("\n");
      bodySinceHeading = true;
    } else {
      // `#` lines inside fences are comments, not headings.
      const lines = ["```python"];
      for (let i = between(random, 1, 8); i > 0; i--) {
        lines.push(pick(random, ["# a comment", "x = compute(y)", "", "    return x"]));
      }
      lines.push("```");
      text += lines.join("\n");
      bodySinceHeading = true;
    }
    text += blankLines();
  }
  return { text, headingLines, sectionStarts };
}

const NOISE_PIECES = [
  "word", "another", "x", "supercalifragilistic", " ", " ", " ", "  ", "\t", "\n", "\n", "\n\n", "\r\n",
  ". ", "! ", "? ", "e.g. ", "3. ", "# ", "## Heading\n", "Title\n===\n", "---\n", "```\n", "||",
  "😀", "👍🏽", "👨‍👩‍👧", "é", "e\u0301", "漢字", "日本語の文章。", "ไทย", "。", "！",
  "\u00a0", "\u3000",
];

/** Arbitrary text from awkward pieces: emoji, combining marks, CJK, Markdown syntax, odd spaces. */
function randomNoise(random: Random, length: number): string {
  let text = "";
  while (text.length < length) text += pick(random, NOISE_PIECES);
  return text;
}

function chunkOptions(overrides: Partial<ChunkOptions> = {}): ChunkOptions {
  return { ...DEFAULT_CHUNK_OPTIONS, ...overrides };
}

const texts = (chunks: readonly TextChunk[]): string[] => chunks.map((chunk) => chunk.text);

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function expectSlicesOf(input: string, chunks: readonly TextChunk[]): void {
  for (const chunk of chunks) {
    expect(chunk.start).toBeLessThan(chunk.end);
    expect(chunk.text).toBe(input.slice(chunk.start, chunk.end));
  }
}

/**
 * True when `chunk` ends with a heading line after some text. A chunk of nothing but headings is
 * allowed: it is what is left when a block of headings is too long to share a chunk with its text.
 */
function endsWithHeadingAfterText(input: string, chunk: TextChunk, headingLines: ReadonlySet<number>): boolean {
  const trimmedEnd = chunk.start + chunk.text.trimEnd().length;
  const lastLine = Math.max(chunk.start, input.lastIndexOf("\n", trimmedEnd - 1) + 1);
  if (!headingLines.has(lastLine)) return false;
  let lineStart = chunk.start;
  while (lineStart < lastLine) {
    const lineEnd = input.indexOf("\n", lineStart);
    if (input.slice(lineStart, lineEnd).trim() !== "" && !headingLines.has(lineStart)) return true;
    lineStart = lineEnd + 1;
  }
  return false;
}

const PROPERTY_RUNS = 300;

// ---------------------------------------------------------------------------------------------

describe("chunkText", () => {
  describe("defaults and trivial input", () => {
    it("defaults to 2048-character basic chunks without overlap", () => {
      expect(DEFAULT_CHUNK_OPTIONS).toEqual({ chunkSize: 2048, chunkOverlap: 0, strategy: "basic" });
    });

    it("returns no chunks for empty or whitespace-only text", () => {
      expect(chunkText("", DEFAULT_CHUNK_OPTIONS)).toEqual([]);
      expect(chunkText(" \n\t\r\n\u00a0\u3000 ", DEFAULT_CHUNK_OPTIONS)).toEqual([]);
      expect(chunkText("\n".repeat(10_000), chunkOptions({ chunkSize: 64 }))).toEqual([]);
    });

    it("returns text that fits as one chunk, whitespace and all", () => {
      const input = "\n  Hello there.  \n\n";
      expect(chunkText(input, DEFAULT_CHUNK_OPTIONS)).toEqual([{ text: input, start: 0, end: input.length }]);
    });
  });

  describe("reassembly and size", () => {
    it("reassembles exactly to the input when there is no overlap", () => {
      const random = seededRandom(1);
      for (let run = 0; run < PROPERTY_RUNS; run++) {
        const input =
          run % 2 === 0
            ? randomMarkdown(random, between(random, 0, 6000)).text
            : randomNoise(random, between(random, 0, 3000));
        const options = chunkOptions({
          chunkSize: between(random, 32, 700),
          strategy: pick(random, ["basic", "by_title"] as const),
          delimiter: random() < 0.2 ? pick(random, ["||", "\n\n", "---"]) : undefined,
          languageCode: pick(random, [undefined, "en", "zh", "jp", "th"]),
        });
        const chunks = chunkText(input, options);
        if (input.trim() === "") {
          expect(chunks).toEqual([]);
          continue;
        }
        expect(texts(chunks).join(""), `seed 1 run ${run}`).toBe(input);
        expectSlicesOf(input, chunks);
        for (let k = 1; k < chunks.length; k++) expect(chunks[k]?.start).toBe(chunks[k - 1]?.end);
      }
    });

    it("never emits a chunk longer than maxChunkSize, or chunkSize when it is not set", () => {
      const random = seededRandom(2);
      for (let run = 0; run < PROPERTY_RUNS; run++) {
        const input = run % 2 === 0 ? randomMarkdown(random, 5000).text : randomNoise(random, 2000);
        const chunkSize = between(random, 32, 600);
        const maxChunkSize = pick(random, [
          undefined,
          chunkSize,
          between(random, 32, chunkSize),
          between(random, chunkSize, 2 * chunkSize),
        ]);
        const chunks = chunkText(
          input,
          chunkOptions({
            chunkSize,
            maxChunkSize,
            chunkOverlap: random() < 0.3 ? between(random, 0, Math.floor(chunkSize / 2) - 1) : 0,
            strategy: pick(random, ["basic", "by_title"] as const),
          }),
        );
        const limit = maxChunkSize ?? chunkSize;
        for (const chunk of chunks) expect(chunk.text.length, `seed 2 run ${run}`).toBeLessThanOrEqual(limit);
      }
    });

    it("never emits an empty or whitespace-only chunk", () => {
      const random = seededRandom(3);
      for (let run = 0; run < PROPERTY_RUNS; run++) {
        const input = run % 2 === 0 ? randomMarkdown(random, 4000).text : randomNoise(random, 2000);
        const chunks = chunkText(
          input,
          chunkOptions({
            chunkSize: between(random, 32, 500),
            strategy: pick(random, ["basic", "by_title"] as const),
            delimiter: random() < 0.3 ? pick(random, ["||", "\n\n", "\n"]) : undefined,
          }),
        );
        for (const chunk of chunks) expect(chunk.text.trim(), `seed 3 run ${run}`).not.toBe("");
      }
    });

    it("gives trailing whitespace to the last chunk even when it would not fit after a full chunk", () => {
      const input = `${"abcd ".repeat(12).trimEnd()}\n\n\n\n`;
      const chunks = chunkText(input, chunkOptions({ chunkSize: 60 }));
      expect(texts(chunks).join("")).toBe(input);
      for (const chunk of chunks) {
        expect(chunk.text.length).toBeLessThanOrEqual(60);
        expect(chunk.text.trim()).not.toBe("");
      }
    });

    it("keeps surrogate pairs, combining marks and emoji sequences whole", () => {
      const random = seededRandom(4);
      const atoms = ["😀", "👍🏽", "👨‍👩‍👧", "e\u0301", "𠀀", "a"];
      for (let run = 0; run < PROPERTY_RUNS; run++) {
        // No spaces at all, so every cut is a hard cut.
        let input = "";
        for (let i = between(random, 1, 400); i > 0; i--) input += pick(random, atoms);
        const chunkOverlap = random() < 0.5 ? 7 : 0;
        const chunks = chunkText(input, chunkOptions({ chunkSize: between(random, 32, 90), chunkOverlap }));
        expectSlicesOf(input, chunks);
        for (const chunk of chunks) {
          for (const edge of [chunk.start, chunk.end]) {
            const splitsPair =
              isHighSurrogate(input.charCodeAt(edge - 1)) && isLowSurrogate(input.charCodeAt(edge));
            expect(splitsPair, `seed 4 run ${run} at ${edge}`).toBe(false);
          }
          const startsMidCharacter = /^[\u0301\u200d\u{1f3fd}]/u.test(chunk.text);
          expect(startsMidCharacter, `seed 4 run ${run}: ${JSON.stringify(chunk.text)}`).toBe(false);
        }
      }
    });

    it("splits a surrogate-pair-only text at the limit without breaking a pair", () => {
      const input = "😀".repeat(100);
      const chunks = chunkText(input, chunkOptions({ chunkSize: 33 }));
      expect(texts(chunks).join("")).toBe(input);
      for (const chunk of chunks) {
        expect(chunk.text.length % 2).toBe(0);
        expect(chunk.text.length).toBeLessThanOrEqual(33);
      }
    });
  });

  describe("where chunks end", () => {
    /** `count` words starting with a capital, so a full stop before them ends a sentence. */
    const words = (count: number): string => {
      const joined = Array.from({ length: count }, (_, i) => VOCABULARY[i % 30]).join(" ");
      return joined.charAt(0).toUpperCase() + joined.slice(1);
    };

    it("merges small paragraphs into one chunk while they fit", () => {
      const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} is short.`);
      const input = paragraphs.join("\n\n");
      const chunks = chunkText(input, chunkOptions({ chunkSize: 100 }));
      expect(texts(chunks).join("")).toBe(input);
      for (const [index, chunk] of chunks.entries()) {
        expect(chunk.text.trimEnd().endsWith("short.")).toBe(true);
        const next = chunks[index + 1];
        // The next paragraph would not have fitted: the chunk is as full as paragraph breaks allow.
        const nextParagraph = next?.text.trimEnd().split("\n\n")[0];
        if (nextParagraph !== undefined) expect(chunk.text.length + nextParagraph.length).toBeGreaterThan(100);
      }
      expect(chunks.length).toBe(3); // four 21-23 character paragraphs per chunk
    });

    it("prefers a paragraph break to a later line break, and a line break to a later sentence end", () => {
      const first = `${words(9)}.`; // about 55 characters
      const paragraphInput = `${first}\n\n${words(3)}\n${words(20)}`;
      const [paragraphChunk] = chunkText(paragraphInput, chunkOptions({ chunkSize: 100 }));
      expect(paragraphChunk?.text).toBe(`${first}\n\n`);

      const lineInput = `${first}\nShort sentence here. ${words(20)}`;
      const [lineChunk] = chunkText(lineInput, chunkOptions({ chunkSize: 100 }));
      expect(lineChunk?.text).toBe(`${first}\n`);
    });

    it("ends at a sentence end rather than between words inside a long paragraph", () => {
      const input = `${words(8)}. ${words(6)}! ${words(40)}`;
      const [chunk] = chunkText(input, chunkOptions({ chunkSize: 100 }));
      expect(chunk?.text.trimEnd().endsWith("!")).toBe(true);
    });

    it("takes a later sentence end over an early paragraph break, so chunks stay at least half full", () => {
      const input = `Intro.\n\n${words(10)}. ${words(30)}`;
      const [chunk] = chunkText(input, chunkOptions({ chunkSize: 100 }));
      expect(chunk?.text).toBe(`Intro.\n\n${words(10)}. `);
    });

    it("falls back to an early paragraph break rather than ending mid-sentence", () => {
      const input = `Intro.\n\n${words(60)}`;
      const [chunk] = chunkText(input, chunkOptions({ chunkSize: 100 }));
      expect(chunk?.text).toBe("Intro.\n\n");
    });

    it("does not end sentences at abbreviations, initials or list numbers", () => {
      const input = `See e.g. the report by J. Smith and the list below.\n1. ${words(30)}`;
      const chunks = chunkText(input, chunkOptions({ chunkSize: 45 }));
      for (const chunk of chunks.slice(0, -1)) {
        expect(chunk.text.trimEnd()).not.toMatch(/(e\.g\.|J\.|^1\.|\n1\.)$/);
      }
    });

    it("never splits inside a word that fits in a chunk", () => {
      const random = seededRandom(5);
      for (let run = 0; run < PROPERTY_RUNS; run++) {
        const vocabulary = ["a", "bb", "ccc", "internationalization", "x".repeat(between(random, 1, 31))];
        let input = "";
        for (let i = between(random, 1, 300); i > 0; i--) {
          input += pick(random, vocabulary) + pick(random, [" ", " ", "\n", ", "]);
        }
        const chunks = chunkText(input, chunkOptions({ chunkSize: between(random, 32, 120) }));
        for (const chunk of chunks) {
          const before = input[chunk.end - 1] ?? " ";
          const after = input[chunk.end] ?? " ";
          expect(/\w/.test(before) && /\w/.test(after), `seed 5 run ${run} at ${chunk.end}`).toBe(false);
        }
      }
    });

    it("cuts a word only when it is longer than the chunk size", () => {
      const long = "z".repeat(150);
      const input = `short words ${long} tail`;
      const chunks = chunkText(input, chunkOptions({ chunkSize: 64 }));
      expect(texts(chunks).join("")).toBe(input);
      expect(chunks[0]?.text).toBe("short words ");
      for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(64);
    });

    it("lets maxChunkSize above chunkSize stretch a chunk to the next sentence end", () => {
      const input = `${words(18)}. ${words(30)}`; // the sentence ends just past 100
      const sentenceEnd = input.indexOf(". ") + 2;
      expect(sentenceEnd).toBeGreaterThan(100);
      const [strict] = chunkText(input, chunkOptions({ chunkSize: 100 }));
      expect(strict?.end).toBeLessThanOrEqual(100);
      const [stretched] = chunkText(input, chunkOptions({ chunkSize: 100, maxChunkSize: 140 }));
      expect(stretched?.end).toBe(sentenceEnd);
    });

    it("keeps a tail that fits within maxChunkSize in the chunk instead of splitting it off", () => {
      const input = `${words(15)}. ${words(4)}.`; // a little over 100 characters in all
      expect(input.length).toBeGreaterThan(100);
      expect(chunkText(input, chunkOptions({ chunkSize: 100 }))).toHaveLength(2);
      expect(texts(chunkText(input, chunkOptions({ chunkSize: 100, maxChunkSize: 150 })))).toEqual([input]);
    });

    it("caps chunks at maxChunkSize when it is below chunkSize", () => {
      const input = paragraph(seededRandom(6), 40);
      const chunks = chunkText(input, chunkOptions({ chunkSize: 500, maxChunkSize: 120 }));
      expect(texts(chunks).join("")).toBe(input);
      for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(120);
    });
  });

  describe("overlap", () => {
    it("starts each chunk no later than the previous one ended, as an exact slice of the input", () => {
      const random = seededRandom(7);
      for (let run = 0; run < PROPERTY_RUNS; run++) {
        const input = run % 2 === 0 ? randomMarkdown(random, 4000).text : randomNoise(random, 2000);
        const chunkSize = between(random, 32, 600);
        const chunkOverlap = between(random, 1, Math.ceil(chunkSize / 2) - 1);
        const strategy = pick(random, ["basic", "by_title"] as const);
        const chunks = chunkText(input, chunkOptions({ chunkSize, chunkOverlap, strategy }));
        expectSlicesOf(input, chunks);
        if (input.trim() !== "") {
          expect(chunks[0]?.start).toBe(0);
          expect(chunks.at(-1)?.end).toBe(input.length);
        }
        for (let k = 1; k < chunks.length; k++) {
          const previous = chunks[k - 1]!;
          const current = chunks[k]!;
          expect(current.start, `seed 7 run ${run}`).toBeLessThanOrEqual(previous.end);
          expect(current.end).toBeGreaterThan(previous.end);
          expect(previous.end - current.start).toBeLessThanOrEqual(chunkOverlap);
        }
      }
    });

    it("begins the overlap at the start of a word", () => {
      const input = paragraph(seededRandom(8), 30);
      const chunks = chunkText(input, chunkOptions({ chunkSize: 200, chunkOverlap: 40 }));
      expect(chunks.length).toBeGreaterThan(3);
      for (const chunk of chunks.slice(1)) {
        expect(chunk.start).toBeLessThan(chunks[chunks.indexOf(chunk) - 1]!.end);
        expect(input[chunk.start - 1]).toBe(" ");
        expect(input[chunk.start]).not.toBe(" ");
      }
    });

    it("never reaches back across a section or delimiter boundary", () => {
      const random = seededRandom(16);
      const first = paragraph(random, 6);
      const second = paragraph(random, 6);
      const bySection = `# One\n\n${first}\n\n# Two\n\n${second}`;
      const sectionStart = bySection.indexOf("# Two");
      const overlapping = { chunkSize: 120, chunkOverlap: 50 };
      const sectionChunks = chunkText(bySection, chunkOptions({ ...overlapping, strategy: "by_title" }));
      expect(sectionChunks.some((chunk) => chunk.start === sectionStart)).toBe(true);
      expect(sectionChunks.some((chunk) => chunk.start < sectionStart && chunk.end > sectionStart)).toBe(false);

      const byDelimiter = `${first}||${second}`;
      const pieceStart = byDelimiter.indexOf("||") + 2;
      const pieceChunks = chunkText(byDelimiter, chunkOptions({ ...overlapping, delimiter: "||" }));
      expect(pieceChunks.some((chunk) => chunk.start === pieceStart)).toBe(true);
      expect(pieceChunks.some((chunk) => chunk.start < pieceStart && chunk.end > pieceStart)).toBe(false);
    });

    it("clamps an overlap of half the chunk size or more instead of looping", () => {
      const input = paragraph(seededRandom(9), 50);
      for (const chunkOverlap of [50, 99, 100, 1_000, Number.POSITIVE_INFINITY]) {
        const chunks = chunkText(input, chunkOptions({ chunkSize: 100, chunkOverlap }));
        expectSlicesOf(input, chunks);
        expect(chunks.at(-1)?.end).toBe(input.length);
        for (let k = 1; k < chunks.length; k++) expect(chunks[k]!.end).toBeGreaterThan(chunks[k - 1]!.end);
      }
    });
  });

  describe("Markdown headings", () => {
    it("starts a new chunk at every heading that follows text with by_title", () => {
      const input =
        "# One\n\nFirst section.\n\n## Two\n\nSecond section.\n\nTitle three\n===========\n\nThird.\n";
      const chunks = chunkText(input, chunkOptions({ strategy: "by_title" }));
      expect(texts(chunks)).toEqual([
        "# One\n\nFirst section.\n\n",
        "## Two\n\nSecond section.\n\n",
        "Title three\n===========\n\nThird.\n",
      ]);
    });

    it("keeps consecutive headings together with the text they introduce", () => {
      const input = "Preamble.\n\n# Part\n\n## Chapter\n\nBody text.\n";
      const chunks = chunkText(input, chunkOptions({ strategy: "by_title" }));
      expect(texts(chunks)).toEqual(["Preamble.\n\n", "# Part\n\n## Chapter\n\nBody text.\n"]);
    });

    it("ignores heading-like lines inside fenced code", () => {
      const input = "# Setup\n\n```bash\n# install\nnpm ci\n```\n\nDone.\n";
      expect(chunkText(input, chunkOptions({ strategy: "by_title" }))).toHaveLength(1);
    });

    it("does not mistake a thematic break or a list for a setext heading", () => {
      const input = "Intro text.\n\n---\n\n- item\n---\n\nEnd.\n";
      expect(chunkText(input, chunkOptions({ strategy: "by_title" }))).toHaveLength(1);
    });

    it("never spans two sections and never leaves a heading at the end of a chunk", () => {
      const random = seededRandom(10);
      for (let run = 0; run < PROPERTY_RUNS; run++) {
        const { text: input, headingLines, sectionStarts } = randomMarkdown(random, between(random, 200, 8000));
        const chunkSize = between(random, 64, 800);
        const chunks = chunkText(input, chunkOptions({ chunkSize, strategy: "by_title" }));
        expect(texts(chunks).join("")).toBe(input);
        for (const start of sectionStarts) {
          const spanning = chunks.find((chunk) => chunk.start < start && start < chunk.end);
          expect(spanning, `seed 10 run ${run}: section at ${start}`).toBeUndefined();
        }
        for (const chunk of chunks.slice(0, -1)) {
          const context = `seed 10 run ${run}: ${JSON.stringify(chunk.text.slice(-60))}`;
          expect(endsWithHeadingAfterText(input, chunk, headingLines), context).toBe(false);
        }
      }
    });

    it("moves a heading at the end of a chunk to the next chunk in basic mode too", () => {
      const random = seededRandom(11);
      for (let run = 0; run < PROPERTY_RUNS; run++) {
        const { text: input, headingLines } = randomMarkdown(random, between(random, 200, 8000));
        const chunks = chunkText(input, chunkOptions({ chunkSize: between(random, 64, 800) }));
        for (const chunk of chunks.slice(0, -1)) {
          const context = `seed 11 run ${run}: ${JSON.stringify(chunk.text.slice(-60))}`;
          expect(endsWithHeadingAfterText(input, chunk, headingLines), context).toBe(false);
        }
      }
    });
  });

  describe("delimiter", () => {
    it("never merges two delimiter pieces and keeps the delimiter with the piece it closes", () => {
      const input = "alpha||beta gamma||delta";
      const chunks = chunkText(input, chunkOptions({ delimiter: "||" }));
      expect(texts(chunks)).toEqual(["alpha||", "beta gamma||", "delta"]);
    });

    it("still applies the size rules inside a piece", () => {
      const big = paragraph(seededRandom(12), 20);
      const input = `${big}||small`;
      const chunks = chunkText(input, chunkOptions({ chunkSize: 200, delimiter: "||" }));
      expect(chunks.length).toBeGreaterThan(2);
      expect(chunks.at(-1)?.text).toBe("small");
      expect(chunks.at(-2)?.text.endsWith("||")).toBe(true);
      for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(200);
    });

    it("joins pieces holding only whitespace to a neighbour", () => {
      const input = "|| ||first|| \n ||||second|| ";
      const chunks = chunkText(input, chunkOptions({ delimiter: "||" }));
      expect(texts(chunks)).toEqual(["|| ||first|| \n ||||", "second|| "]);
    });

    it("ends every chunk at a delimiter when the pieces fit", () => {
      const random = seededRandom(13);
      for (let run = 0; run < PROPERTY_RUNS; run++) {
        const pieces: string[] = [];
        for (let i = between(random, 1, 20); i > 0; i--) pieces.push(paragraph(random, between(random, 1, 3)));
        const input = pieces.join("\n---\n");
        const chunks = chunkText(input, chunkOptions({ chunkSize: 2048, delimiter: "\n---\n" }));
        const expected = pieces.map((piece, i) => (i < pieces.length - 1 ? `${piece}\n---\n` : piece));
        expect(texts(chunks)).toEqual(expected);
      }
    });
  });

  describe("languages", () => {
    it("ends Chinese and Japanese chunks at full-width stops without spaces", () => {
      const chinese = "我们今天去公园散步。天气非常好！你想一起去吗？我觉得这个主意很好。".repeat(4);
      for (const languageCode of ["zh", undefined]) {
        const chunks = chunkText(chinese, chunkOptions({ chunkSize: 32, languageCode }));
        expect(texts(chunks).join("")).toBe(chinese);
        for (const chunk of chunks) expect(chunk.text).toMatch(/[。！？]$/);
      }
      const japanese = "今日は良い天気です。「散歩に行きましょう。」公園はとても静かでした。".repeat(3);
      const chunks = chunkText(japanese, chunkOptions({ chunkSize: 32, languageCode: "jp" }));
      expect(texts(chunks).join("")).toBe(japanese);
      for (const chunk of chunks) expect(chunk.text).toMatch(/[。」]$/);
    });

    it("breaks unpunctuated Chinese and Thai text between words, not inside them", () => {
      const chinese = "人工智能技术正在改变我们的生活方式和工作方式".repeat(5);
      const chunks = chunkText(chinese, chunkOptions({ chunkSize: 32, languageCode: "zh" }));
      expect(texts(chunks).join("")).toBe(chinese);
      const words = new Intl.Segmenter("zh", { granularity: "word" });
      const breaks = new Set([...words.segment(chinese)].map((segment) => segment.index));
      for (const chunk of chunks.slice(1)) expect(breaks.has(chunk.start)).toBe(true);

      const thai = "ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ".repeat(4);
      const thaiChunks = chunkText(thai, chunkOptions({ chunkSize: 40, languageCode: "th" }));
      expect(texts(thaiChunks).join("")).toBe(thai);
      const thaiWords = new Intl.Segmenter("th", { granularity: "word" });
      const thaiBreaks = new Set([...thaiWords.segment(thai)].map((segment) => segment.index));
      for (const chunk of thaiChunks.slice(1)) expect(thaiBreaks.has(chunk.start)).toBe(true);
    });

    it("treats spaces between Thai phrases as sentence breaks", () => {
      const thai = "วันนี้อากาศดีมาก เราไปเดินเล่นที่สวนสาธารณะกัน แล้วก็กลับบ้านตอนเย็น";
      const [chunk] = chunkText(thai, chunkOptions({ chunkSize: 50, languageCode: "th" }));
      expect(chunk?.text).toBe("วันนี้อากาศดีมาก เราไปเดินเล่นที่สวนสาธารณะกัน ");
    });

    it("recognises Devanagari and Arabic sentence ends", () => {
      const hindi = "यह पहला वाक्य है। यह दूसरा वाक्य है। यह तीसरा वाक्य काफी लंबा है और चलता रहता है";
      const [first] = chunkText(hindi, chunkOptions({ chunkSize: 50, languageCode: "hi" }));
      expect(first?.text.trimEnd().endsWith("।")).toBe(true);
    });
  });

  describe("tables", () => {
    const sheet = (rows: number) =>
      ["## Countries", "", "| Code | Name |", "| --- | --- |", ...Array.from({ length: rows }, (_, index) => `| C${index} | Country number ${index} |`)].join("\n");

    it("repeats the header row and the sheet heading at the start of every chunk that continues a table", () => {
      const input = `Intro paragraph.\n\n${sheet(200)}\n\nClosing paragraph after the table.`;
      const chunks = chunkText(input, chunkOptions({ chunkSize: 300 }));
      expect(chunks.length).toBeGreaterThan(10);
      const continuing = chunks.filter((chunk) => chunk.start > input.indexOf("| C0 |") && input.slice(chunk.start, chunk.end).trimStart().startsWith("| C"));
      expect(continuing.length).toBeGreaterThan(8);
      for (const chunk of continuing) {
        expect(chunk.text.startsWith("## Countries\n\n| Code | Name |\n| --- | --- |\n| C")).toBe(true);
        expect(chunk.repeated).toBe("## Countries\n\n| Code | Name |\n| --- | --- |\n".length);
      }
      // Without the repeated part the chunks are still exact slices that rebuild the input, and
      // the repetition counts against the size limit.
      expect(chunks.map((chunk) => chunk.text.slice(chunk.repeated ?? 0)).join("")).toBe(input);
      for (const chunk of chunks) expect(chunk.text.slice(chunk.repeated ?? 0)).toBe(input.slice(chunk.start, chunk.end));
      expect(Math.max(...chunks.map((chunk) => chunk.text.length))).toBeLessThanOrEqual(300);
      expect(chunks.filter((chunk) => chunk.text.includes("Closing paragraph")).every((chunk) => chunk.repeated === undefined || chunk.text.includes("| C199 |"))).toBe(true);
    });

    it("repeats the header in overlapping chunks too, within the size limit", () => {
      const input = sheet(120);
      const chunks = chunkText(input, chunkOptions({ chunkSize: 256, chunkOverlap: 60 }));
      expect(chunks.length).toBeGreaterThan(10);
      for (const chunk of chunks.slice(1)) {
        expect(chunk.repeated, chunk.text.slice(0, 60)).toBeGreaterThan(0);
        expect(chunk.text.length).toBeLessThanOrEqual(256);
        expect(chunk.text.slice(chunk.repeated)).toBe(input.slice(chunk.start, chunk.end));
      }
    });

    it("repeats nothing for chunks outside tables, and nothing when the header would fill half the chunk", () => {
      const prose = chunkText(paragraph(seededRandom(3), 60), chunkOptions({ chunkSize: 200 }));
      expect(prose.every((chunk) => chunk.repeated === undefined)).toBe(true);
      const wide = `| ${"Long column title ".repeat(8)}| B |\n| --- | --- |\n${Array.from({ length: 40 }, (_, index) => `| row ${index} | value |`).join("\n")}`;
      const chunks = chunkText(wide, chunkOptions({ chunkSize: 256 }));
      expect(chunks.length).toBeGreaterThan(2);
      expect(chunks.every((chunk) => chunk.repeated === undefined)).toBe(true);
      expect(texts(chunks).join("")).toBe(wide);
    });

    it("repeats a table's header in by_title chunks and keeps a table without a heading headed by its row alone", () => {
      const input = `# Report\n\nText.\n\n| Year | Total |\n|---|---|\n${Array.from({ length: 60 }, (_, index) => `| ${2000 + index} | ${index * 7} |`).join("\n")}\n`;
      const chunks = chunkText(input, chunkOptions({ chunkSize: 160, strategy: "by_title" }));
      const continuing = chunks.filter((chunk) => chunk.repeated !== undefined);
      expect(continuing.length).toBeGreaterThan(3);
      for (const chunk of continuing) expect(chunk.text.startsWith("| Year | Total |\n|---|---|\n| 20")).toBe(true);
    });
  });

  describe("pages", () => {
    it("numbers each chunk by the page holding its first character", () => {
      const pages = ["Page one text.\n\n", "Page two has more words.\n\n", "Page three.\n"];
      const input = pages.join("");
      const offsets = [0, pages[0]!.length, pages[0]!.length + pages[1]!.length];
      const chunks = chunkText(input, chunkOptions({ chunkSize: 32 }), offsets);
      expect(chunks.map((chunk) => [chunk.text, chunk.page])).toEqual([
        ["Page one text.\n\n", 1],
        ["Page two has more words.\n\n", 2],
        ["Page three.\n", 3],
      ]);
    });

    it("counts text before the first page offset as page 1", () => {
      const input = "Cover.\n\nBody starts here and continues.\n";
      const chunks = chunkText(input, chunkOptions({ chunkSize: 32 }), [8]);
      expect(chunks.map((chunk) => chunk.page)).toEqual([1, 1]);
    });

    it("leaves page unset when no offsets are given", () => {
      expect(chunkText("Some text.", DEFAULT_CHUNK_OPTIONS)[0]).not.toHaveProperty("page");
    });
  });

  describe("robustness and speed", () => {
    it("neither throws nor loops on degenerate options", () => {
      const random = seededRandom(14);
      const input = randomNoise(random, 3000);
      const degenerate: Partial<ChunkOptions>[] = [
        { chunkSize: 0 },
        { chunkSize: -5 },
        { chunkSize: 1 },
        { chunkSize: Number.NaN },
        { chunkSize: Number.POSITIVE_INFINITY },
        { chunkSize: 10, chunkOverlap: 50 },
        { chunkSize: 40, maxChunkSize: 1 },
        { chunkSize: 40, maxChunkSize: 0, chunkOverlap: 39 },
        { chunkSize: 40, chunkOverlap: -3 },
        { chunkSize: 40, delimiter: "" },
        { chunkSize: 40, delimiter: input },
        { chunkSize: 40, languageCode: "not a language!" },
      ];
      for (const overrides of degenerate) {
        const chunks = chunkText(input, chunkOptions(overrides));
        expectSlicesOf(input, chunks);
        expect(chunks.at(-1)?.end).toBe(input.length);
        if (!overrides.chunkOverlap) expect(texts(chunks).join("")).toBe(input);
      }
    });

    // Throughput is measured in bench/chunker.ts and bench/text-parsers.ts; this checks the output.
    it("chunks 5 MB of Markdown losslessly with either strategy", () => {
      const random = seededRandom(15);
      const parts: string[] = [];
      let length = 0;
      while (length < 5_000_000) {
        const block = random() < 0.15 ? `## ${sentence(random)}` : paragraph(random);
        parts.push(block, "\n\n");
        length += block.length + 2;
      }
      const input = parts.join("");
      for (const strategy of ["basic", "by_title"] as const) {
        const chunks = chunkText(input, chunkOptions({ strategy }));
        expect(texts(chunks).join("")).toBe(input);
      }
    });

    it("chunks text without any natural boundary losslessly", () => {
      const inputs = ["x".repeat(2_000_000), " ".repeat(1_000_000) + "x", "a\u0301".repeat(500_000)];
      for (const input of inputs) {
        const chunks = chunkText(input, chunkOptions({ chunkSize: 512 }));
        expect(texts(chunks).join("")).toBe(input);
      }
    });
  });
});
