import { BLOCK_START, SENTENCE_END } from "./paragraph-rules.ts";

/**
 * The reading decisions of the PDF reader that need no PDF: which lines are headings (from the
 * type, when the file has no outline), whether a paragraph runs on across a page break, whether a
 * hyphen at a line end splits one word or joins a compound, and the order of right-to-left runs.
 * Pure functions over lines as pdf.ts builds them, so each rule is unit-tested on its own.
 */

export interface LayoutLine {
  text: string;
  /** Baseline, PDF units from the bottom. */
  y: number;
  /** Type size of the line's largest run (0 for OCR lines, which have no type). */
  size: number;
  /** Left and right edges of the line's glyphs. */
  left: number;
  right: number;
  /** The font most of the line's characters are set in (pdf.js's id for it). */
  font: string;
  /** Markdown heading level given by the outline or the type rule; 0 for body text. */
  heading: number;
}

/** Words of a line as the statistics count them: letters (and digits inside words), lower-cased. */
const WORD = /[\p{L}\p{N}]+/gu;


/**
 * Font names that say bold: the weight in the name (LiberationSerif-Bold, Times-Bold, Arial,Bold,
 * NotoSans-SemiBold) or TeX's bold fonts (CMBX12, CMB10, SFBX1200).
 */
export function isBoldFontName(name: string | undefined): boolean {
  if (!name) return false;
  const bare = name.replace(/^[A-Z]{6}\+/, "");
  return /bold|black|heavy|semibold|demi(?!.*light)|ultra(?=b)|extrab|[-,]B(?:d|old)?$/i.test(bare) || /^(?:CMBX|CMB|SFBX|EUBX|LMRoman\d*-Bold)\d*/i.test(bare);
}

function roundedSize(size: number): number {
  return Math.round(size * 2) / 2;
}

/** The size most characters are set in: the body text's. */
export function bodySize(lines: readonly LayoutLine[]): number {
  const weights = new Map<number, number>();
  for (const line of lines) {
    if (line.size === 0) continue;
    const size = roundedSize(line.size);
    weights.set(size, (weights.get(size) ?? 0) + line.text.length);
  }
  let best = 0;
  let bestWeight = -1;
  for (const [size, weight] of weights) {
    if (weight > bestWeight) {
      best = size;
      bestWeight = weight;
    }
  }
  return best;
}

/** Larger than the body by at least this ratio: set apart by size (18 pt headings over 12 pt text, 21 over 18). */
const LARGER_RATIO = 1.1;
/** Type this many times the body's size is a title. */
const TITLE_RATIO = 1.7;
/** Below this share of the document's characters a style is rare enough to mark headings. */
const HEADING_STYLE_SHARE = 0.25;

export interface HeadingStyleInput {
  /** Every page's lines, in reading order, running headers and footers already removed. */
  pages: readonly (readonly LayoutLine[])[];
  /** The name of a font id, where it is known (see pdf.ts: names are read only for the fonts that need it). */
  fontName: (font: string) => string | undefined;
}

/** A line that could be a heading at all: short, not ending as prose ends, with a letter in it. */
function headingShaped(line: LayoutLine): boolean {
  const text = line.text;
  // A numbered heading may end with a full stop ("0. Definitions."); a longer line that does is prose.
  const prose = /[,;:]$/.test(text) || (text.endsWith(".") && text.length > 80);
  return line.size > 0 && text.length <= 120 && !prose && /\p{L}/u.test(text) && !/^[•◦▪‣○●■□–—*-]\s/u.test(text);
}

/**
 * Headings from the type when the document has no outline, by a statistical rule rather than a
 * fixed size: the body is the size most characters are set in; a heading style is a style (size,
 * weight) that is larger than the body, or as large but bold where the body is not and standing
 * apart from the text around it, and that few characters are set in. Styles are ranked by size,
 * then weight, into levels 1 to 6. The fonts of lines that could be bold headings are named by
 * `fontName`; `boldCandidates` lists them for the caller to resolve first.
 */
export function assignHeadingsByType(input: HeadingStyleInput): void {
  const all = input.pages.flat();
  const body = bodySize(all);
  if (body === 0) return;
  const totalCharacters = all.reduce((sum, line) => sum + line.text.length, 0);
  const bodyFont = dominantFont(all.filter((line) => roundedSize(line.size) === body));
  const bodyBold = isBoldFontName(input.fontName(bodyFont));

  const styleOf = (line: LayoutLine, previous: LayoutLine | undefined, next: LayoutLine | undefined): string | null => {
    if (!headingShaped(line)) return null;
    const size = roundedSize(line.size);
    if (size >= body * LARGER_RATIO) return `${size}|${isBoldFontName(input.fontName(line.font)) ? 1 : 0}`;
    if (size < body * 0.95 || bodyBold || line.font === bodyFont || !isBoldFontName(input.fontName(line.font))) return null;
    return standsApart(line, previous, next, body, (other) => isBoldFontName(input.fontName(other.font))) ? `${size}|1` : null;
  };

  const styles = new Map<string, { characters: number; lines: LayoutLine[] }>();
  const styleCharacters = new Map<string, number>();
  for (const page of input.pages) {
    page.forEach((line, index) => {
      const key = `${roundedSize(line.size)}|${isBoldFontName(input.fontName(line.font)) ? 1 : 0}`;
      styleCharacters.set(key, (styleCharacters.get(key) ?? 0) + line.text.length);
      const style = styleOf(line, page[index - 1], page[index + 1]);
      if (style === null) return;
      const entry = styles.get(style) ?? { characters: 0, lines: [] };
      entry.lines.push(line);
      styles.set(style, entry);
    });
  }
  const ranked = [...styles.keys()]
    .filter((style) => (styleCharacters.get(style) ?? 0) <= totalCharacters * HEADING_STYLE_SHARE)
    .sort((a, b) => {
      const [sizeA, boldA] = a.split("|").map(Number) as [number, number];
      const [sizeB, boldB] = b.split("|").map(Number) as [number, number];
      return sizeB - sizeA || boldB - boldA;
    });
  // Only type set well above the text (1.7 times) reads as a title, `#`; when the largest heading is
  // nearer the text's size, the document has section headings but no title, and they start at `##`.
  const largest = ranked.length === 0 ? 0 : Number(ranked[0]!.split("|")[0]);
  const first = largest >= body * TITLE_RATIO ? 1 : 2;
  ranked.forEach((style, rank) => {
    for (const line of styles.get(style)!.lines) line.heading = Math.min(6, rank + first);
  });
}

/** The fonts worth naming before assignHeadingsByType: those of lines that could be bold headings at the body size. */
export function boldCandidateFonts(pages: readonly (readonly LayoutLine[])[]): Set<string> {
  const all = pages.flat();
  const body = bodySize(all);
  const bodyFont = dominantFont(all.filter((line) => roundedSize(line.size) === body));
  const fonts = new Set<string>([bodyFont]);
  for (const line of all) {
    const size = roundedSize(line.size);
    if (headingShaped(line) && size >= body * 0.95) fonts.add(line.font);
  }
  fonts.delete("");
  return fonts;
}

function dominantFont(lines: readonly LayoutLine[]): string {
  const weights = new Map<string, number>();
  for (const line of lines) weights.set(line.font, (weights.get(line.font) ?? 0) + line.text.length);
  let best = "";
  let bestWeight = -1;
  for (const [font, weight] of weights) {
    if (weight > bestWeight) {
      best = font;
      bestWeight = weight;
    }
  }
  return best;
}

/**
 * A bold line at the body size is a heading only when it stands apart: more space above it than
 * between lines of a paragraph, or set further left than the line below it (a man page's NAME
 * above its indented text), and not running on from a line that left its sentence open.
 */
function standsApart(line: LayoutLine, previous: LayoutLine | undefined, next: LayoutLine | undefined, body: number, bold: (line: LayoutLine) => boolean): boolean {
  // Space above, or a bold heading right above it set further left (a subsection under its section).
  const spaceAbove = previous === undefined || Math.abs(previous.y - line.y) > body * 1.6 || (previous.left < line.left - body / 2 && bold(previous));
  // A heading starts with a word (or a quoted one); a bold option or command ("-depth", "$ find") is a term being defined.
  if (!spaceAbove || next === undefined || !/^[\p{L}“‘"']/u.test(line.text)) return false;
  if (next.left > line.left + body) return true;
  // Level with the text: only a short title-like line with space below it too (not a command or code).
  return Math.abs(line.y - next.y) > body * 1.6 && line.text.length <= 60 && /^\p{Lu}/u.test(line.text) && !/[$\\(){}=<>|/]/.test(line.text);
}

/** Counts of words and of hyphenated compounds in the document, for deciding line-end hyphens. */
export class WordStatistics {
  private readonly words = new Map<string, number>();
  private readonly compounds = new Map<string, number>();

  /** Counts one line's words, leaving out a fragment broken off at its end by a hyphen. */
  add(text: string): void {
    const broken = /(\p{L}+)-$/u.exec(text);
    const counted = broken ? text.slice(0, broken.index) : text;
    for (const word of counted.toLowerCase().match(WORD) ?? []) this.words.set(word, (this.words.get(word) ?? 0) + 1);
    for (const match of counted.toLowerCase().matchAll(/(\p{L}+)-(\p{L}+)/gu)) {
      const key = `${match[1]}-${match[2]}`;
      this.compounds.set(key, (this.compounds.get(key) ?? 0) + 1);
    }
  }

  word(word: string): number {
    return this.words.get(word.toLowerCase()) ?? 0;
  }

  compound(first: string, second: string): number {
    return this.compounds.get(`${first.toLowerCase()}-${second.toLowerCase()}`) ?? 0;
  }
}

/**
 * How a line ending in a hyphen joins the next line: `word` when the hyphen only split a word at
 * the margin ("prece-" + "dence"), `compound` when it belongs to the word ("well-" + "known"), or
 * null when the next line does not continue the word. The document decides: whichever of the
 * joined word and the hyphenated compound it uses more often elsewhere wins; when it uses neither,
 * two halves that are both words of their own make a compound, anything else one word.
 */
export function lineEndHyphen(line: string, next: string, statistics: WordStatistics): "word" | "compound" | null {
  const before = /(\p{L}+)-$/u.exec(line);
  const after = /^(\p{L}+)/u.exec(next);
  if (!before || !after) return null;
  const first = before[1]!;
  const second = after[1]!;
  if (!/^\p{Ll}/u.test(second)) return "compound";
  const joined = statistics.word(first + second);
  const hyphenated = statistics.compound(first, second);
  if (joined !== hyphenated) return joined > hyphenated ? "word" : "compound";
  return first.length > 1 && statistics.word(first) > 0 && statistics.word(second) > 0 ? "compound" : "word";
}

/** Words a sentence cannot end on (English): a line ending with one runs on. */
const OPEN_ENDINGS = new Set(["a", "an", "the", "and", "or", "nor", "but", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "that", "which", "is", "are", "be", "not"]);

/**
 * Whether the paragraph at the end of one page runs on at the top of the next. Never after a
 * sentence end, a heading, or before a list item; always when the next page starts in lower case
 * or the last line ends on a comma, a dash, a backslash or a word no sentence ends on ("or"). Otherwise
 * the line breaking decides: a line only wraps when the next word does not fit, so if the next
 * page's first word would have fitted in the room left at the end of the last line, the
 * paragraph ended there.
 */
export function continuesAcrossPages(last: LayoutLine | undefined, first: LayoutLine | undefined, rightMargin: number): boolean {
  if (!last || !first || last.heading > 0 || first.heading > 0) return false;
  if (last.text === "" || first.text === "" || SENTENCE_END.test(last.text) || BLOCK_START.test(first.text)) return false;
  // A trailing backslash continues a command line, as it does in a shell.
  if (/^\p{Ll}/u.test(first.text) || /[,–—\\-]$/.test(last.text)) return true;
  if (OPEN_ENDINGS.has((last.text.toLowerCase().match(/\p{L}+$/u) ?? [""])[0])) return true;
  if (last.size === 0 || first.size === 0 || rightMargin <= 0) return false;
  const characterWidth = (first.right - first.left) / Math.max(1, first.text.length);
  const firstWord = first.text.split(" ", 1)[0]!;
  return rightMargin - last.right < (firstWord.length + 1) * characterWidth;
}

/** A run of glyphs on one line, as pdf.js gives it: its text (each run in logical order) and position. */
export interface LineRun {
  text: string;
  x: number;
  width: number;
}

const STRONG_RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/u;
const STRONG_LTR = /[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]/u;

/**
 * The text of one line in reading order. pdf.js puts each run's own characters in logical order
 * (Unicode bidi), but a line mixing runs keeps them in the order the file drew them, which for a
 * right-to-left line is its visual order: read from the left, Arabic and Hebrew sentences come out
 * backwards. In a line whose strong characters are mostly right-to-left, the runs are laid out
 * left to right by position and read from the right, each left-to-right stretch (Latin words,
 * numbers, an e-mail address) kept in its own order, as the bidi algorithm reorders levels 1 and
 * 2; neutral runs (spaces, punctuation) take the level of the runs around them. A visual gap wider
 * than `gapWidth` between two runs is a space.
 */
export function lineText(runs: readonly LineRun[], gapWidth: number): string {
  let rtlCharacters = 0;
  let ltrCharacters = 0;
  for (const run of runs) {
    for (const char of run.text) {
      if (STRONG_RTL.test(char)) rtlCharacters++;
      else if (STRONG_LTR.test(char)) ltrCharacters++;
    }
  }
  const ordered = rtlCharacters > ltrCharacters ? [...runs].sort((a, b) => a.x - b.x) : runs;
  // Runs in drawing (or visual) order, with a space run wherever a gap separates two of them.
  const spaced: string[] = [];
  ordered.forEach((run, index) => {
    const previous = ordered[index - 1];
    if (previous && run.x > previous.x + previous.width + gapWidth && !previous.text.endsWith(" ") && !run.text.startsWith(" ")) spaced.push(" ");
    spaced.push(run.text);
  });
  if (rtlCharacters <= ltrCharacters) return spaced.join("");
  const strong = spaced.map((text) => (STRONG_RTL.test(text) ? 1 : /[A-Za-z0-9\u00c0-\u024f]/.test(text) ? 2 : 0));
  const level = strong.map((value, index) => {
    if (value !== 0) return value;
    const before = strong.slice(0, index).reverse().find((other) => other !== 0) ?? 1;
    const after = strong.slice(index + 1).find((other) => other !== 0) ?? 1;
    return before === 2 && after === 2 ? 2 : 1;
  });
  const order = spaced.map((_, index) => index).reverse();
  // Reversing the whole line reversed the level-2 stretches too: put each back in its own order.
  for (let start = 0; start < order.length; ) {
    if (level[order[start]!] !== 2) {
      start++;
      continue;
    }
    let end = start;
    while (end + 1 < order.length && level[order[end + 1]!] === 2) end++;
    order.splice(start, end - start + 1, ...order.slice(start, end + 1).reverse());
    start = end + 1;
  }
  return order.map((index) => spaced[index]).join("");
}

/** Letters and digits only, lower-cased: how outline titles and heading lines are compared. */
export function headingKey(text: string): string {
  return (text.normalize("NFKC").toLowerCase().match(WORD) ?? []).join(" ");
}

/**
 * The line (or two or three consecutive lines, for a title that wraps) that an outline entry names:
 * the same words, allowing a section number or label before them ("2.1 ASN.1 syntax" for "ASN.1
 * syntax"). Returns the index of the first line and how many lines the title spans, or null.
 */
export function findTitleLines(lines: readonly LayoutLine[], title: string, from = 0): { index: number; count: number } | null {
  const key = headingKey(title);
  if (key === "") return null;
  for (let index = from; index < lines.length; index++) {
    let joined = "";
    for (let count = 1; count <= 3 && index + count <= lines.length; count++) {
      const line = lines[index + count - 1]!;
      if (count > 1 && line.heading > 0) break;
      joined = joined === "" ? headingKey(line.text) : `${joined} ${headingKey(line.text)}`;
      if (joined.length > key.length + 24) break;
      if (joined === key || (joined.endsWith(` ${key}`) && isLabel(joined.slice(0, -key.length - 1)))) return { index, count };
    }
  }
  return null;
}

/** What may stand before a title on its line: a section number or a word like "Chapter 4" or "Appendix A". */
function isLabel(prefix: string): boolean {
  return /^(?:(?:chapter|section|part|appendix|article)(?:\s[0-9a-z]{1,3})?|[0-9a-z]{1,3})(?:\s[0-9]{1,3}){0,3}$/.test(prefix);
}

/**
 * pdf.js puts each right-to-left run in logical order by reversing it character by character. A
 * glyph that stands for two letters, as Arabic's mandatory lam-alef ligature does ("لا", "لأ"),
 * is written in the file with its letters already in logical order, so the reversal turns them the
 * wrong way round ("ال"): the word is misspelled and search misses it. The page's glyphs (from its
 * operator list, in drawing order) say where such glyphs are; each right-to-left run is matched to
 * them and reversed glyph by glyph instead. A run that cannot be matched exactly is left as it is.
 */
export class LigatureOrder {
  /** The page's glyphs without whitespace, concatenated, and where each glyph starts in that text. */
  private readonly drawn: string;
  private readonly glyphAt = new Map<number, string>();
  private cursor = 0;

  constructor(glyphs: readonly string[]) {
    let drawn = "";
    for (const glyph of glyphs) {
      const visible = glyph.replace(/\s+/g, "");
      if (visible === "") continue;
      if ([...visible].length > 1 && STRONG_RTL.test(visible)) this.glyphAt.set(drawn.length, visible);
      drawn += visible;
    }
    this.drawn = drawn;
  }

  /** Whether the page has any multi-letter right-to-left glyph at all. */
  get needed(): boolean {
    return this.glyphAt.size > 0;
  }

  /** A right-to-left run as pdf.js gave it, with every multi-letter glyph's letters back in order. */
  restore(text: string): string {
    // Only a run pdf.js reversed whole (no left-to-right letters or digits kept in their order).
    if (!this.needed || !STRONG_RTL.test(text) || /[A-Za-z0-9\u00c0-\u024f]/.test(text)) return text;
    const visual = [...text].reverse();
    const letters = visual.filter((char) => !/\s/.test(char)).join("");
    if (letters === "") return text;
    let start = this.drawn.indexOf(letters, this.cursor);
    if (start < 0) start = this.drawn.indexOf(letters);
    if (start < 0) return text;
    this.cursor = start + letters.length;
    // Walk the visual text and the drawn glyphs together, reversing each ligature's letters in place.
    let drawnIndex = start;
    for (let index = 0; index < visual.length; ) {
      if (/\s/.test(visual[index]!)) {
        index++;
        continue;
      }
      const glyph = this.glyphAt.get(drawnIndex);
      const length = glyph ? [...glyph].length : 1;
      if (glyph && visual.slice(index, index + length).join("") === glyph) {
        visual.splice(index, length, ...[...glyph].reverse());
      }
      index += length;
      drawnIndex += glyph ? glyph.length : visual[index - 1]!.length;
    }
    return visual.reverse().join("");
  }
}
