/**
 * The fidelity benchmark's measures: how much of what an author wrote survives extraction. Pure
 * functions of a reference (the source the document was made from) and the extracted Markdown, so
 * the pass/fail decisions of bench/fidelity.ts are unit-tested (test/unit/fidelity-metrics.test.ts).
 */

/** Words as search sees them: letters and digits, case- and width-folded. */
export function words(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function counts(list: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const word of list) map.set(word, (map.get(word) ?? 0) + 1);
  return map;
}

/** Share of the reference's words (with repetitions) found in the extraction. */
export function wordRecall(reference: string, extracted: string): number {
  const wanted = counts(words(reference));
  const found = counts(words(extracted));
  let total = 0;
  let hits = 0;
  for (const [word, count] of wanted) {
    total += count;
    hits += Math.min(count, found.get(word) ?? 0);
  }
  return total === 0 ? 1 : hits / total;
}

/** The text of every Markdown ATX heading, in order. */
export function markdownHeadings(markdown: string): string[] {
  const headings: string[] = [];
  for (const match of markdown.matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) headings.push(match[1]!);
  return headings;
}

const headingKey = (text: string) => words(text).join(" ");

/**
 * A reference heading is found when an extracted heading reads the same, allowing a section number
 * or label on one side ("2.1 ASN.1 syntax" for the outline's "ASN.1 syntax"). Headings are matched
 * in document order, each extracted one at most once.
 */
export function headingRecall(reference: readonly string[], extracted: readonly string[]): { found: number; total: number; missing: string[] } {
  const candidates = extracted.map(headingKey);
  const used = new Set<number>();
  const missing: string[] = [];
  let found = 0;
  let from = 0;
  for (const heading of reference) {
    const key = headingKey(heading);
    if (key === "") continue;
    let match = -1;
    for (let pass = 0; pass < 2 && match < 0; pass++) {
      const start = pass === 0 ? from : 0;
      for (let index = start; index < candidates.length; index++) {
        if (used.has(index)) continue;
        const candidate = candidates[index]!;
        if (candidate === key || candidate.endsWith(` ${key}`) || key.endsWith(` ${candidate}`)) {
          match = index;
          break;
        }
      }
    }
    if (match < 0) {
      missing.push(heading);
      continue;
    }
    used.add(match);
    from = match + 1;
    found++;
  }
  return { found, total: found + missing.length, missing };
}

interface ReferenceWord {
  word: string;
  /** A sentence or paragraph ends after this word. */
  closes: boolean;
}

/** The reference as words, each marked when a sentence (. ! ? :) or a paragraph ends after it. */
export function referenceWords(reference: string): ReferenceWord[] {
  const out: ReferenceWord[] = [];
  const pattern = /[\p{L}\p{N}]+/gu;
  const text = reference.normalize("NFKC");
  let match: RegExpExecArray | null;
  let previousEnd = -1;
  while ((match = pattern.exec(text))) {
    if (out.length > 0) {
      const between = text.slice(previousEnd, match.index);
      if (/[.!?:;。؟]|\n[ \t]*\n/.test(between)) out[out.length - 1]!.closes = true;
    }
    out.push({ word: match[0].toLowerCase(), closes: false });
    previousEnd = match.index + match[0].length;
  }
  if (out.length > 0) out[out.length - 1]!.closes = true;
  return out;
}

/**
 * Page boundaries at which the extraction starts a new paragraph (a blank line) while the reference
 * runs on within one sentence across them: the last two words before the boundary and the first
 * two after it stand together in the reference with no sentence or paragraph end between them.
 * Boundaries the reference cannot place (running matter, text the reference lacks) are not counted.
 */
export function pageBoundaryBreaks(reference: string, extracted: string, pageOffsets: readonly number[]): { midSentence: number; broken: number; boundaries: number } {
  const ref = referenceWords(reference);
  const index = new Map<string, number[]>();
  for (let position = 0; position + 3 < ref.length; position++) {
    const key = `${ref[position]!.word} ${ref[position + 1]!.word} ${ref[position + 2]!.word} ${ref[position + 3]!.word}`;
    const list = index.get(key) ?? [];
    list.push(position);
    index.set(key, list);
  }
  let midSentence = 0;
  let broken = 0;
  let boundaries = 0;
  for (const offset of pageOffsets.slice(1)) {
    if (offset <= 0 || offset >= extracted.length) continue;
    boundaries++;
    const before = words(extracted.slice(Math.max(0, offset - 200), offset)).slice(-2);
    const after = words(extracted.slice(offset, offset + 200)).slice(0, 2);
    // A word joined over the boundary (hyphenation undone) is one word: the sentence runs on.
    if (/[\p{L}\p{N}]/u.test(extracted[offset - 1] ?? "") && /[\p{L}\p{N}]/u.test(extracted[offset] ?? "")) continue;
    if (before.length < 2 || after.length < 2) continue;
    const positions = index.get([...before, ...after].join(" ")) ?? [];
    if (positions.length === 0 || positions.some((position) => ref[position + 1]!.closes)) continue;
    midSentence++;
    const gapStart = extracted.slice(0, offset).search(/\s*$/);
    const gapEnd = offset + (extracted.slice(offset).match(/^\s*/)?.[0].length ?? 0);
    if (/\n[ \t]*\n/.test(extracted.slice(gapStart, gapEnd))) broken++;
  }
  return { midSentence, broken, boundaries };
}

/** The numbers of ordered-list items (`0.`, `11)`), in order, at any depth. */
export function listNumbers(markdown: string): number[] {
  const numbers: number[] = [];
  for (const match of markdown.matchAll(/^[ \t]*(\d{1,9})[.)][ \t]+\S/gm)) numbers.push(Number(match[1]));
  return numbers;
}

/** Reference list numbers found, in order, among the extracted ones (extra numbers are ignored). */
export function listNumberRecall(reference: readonly number[], extracted: readonly number[]): { found: number; total: number } {
  let found = 0;
  let from = 0;
  for (const number of reference) {
    const at = extracted.indexOf(number, from);
    if (at < 0) continue;
    found++;
    from = at + 1;
  }
  return { found, total: reference.length };
}

/**
 * Lines of the extraction whose words read in the reference's order: every two adjacent words of
 * the line stand next to each other, in that order, in the reference. Right-to-left text put out
 * in visual order reads runs of words backwards and fails. Only words the reference has are
 * judged (a misread word is word recall's to count), with the order of a lam-alef ligature's two
 * letters folded (see orderKey). Returns the lines in order and the lines judged.
 */
export function linesInOrder(reference: string, extracted: string): { inOrder: number; lines: number } {
  const pairs = new Set<string>();
  const orderWords = (text: string) => words(text).map(orderKey);
  const vocabulary = new Set(orderWords(reference));
  for (const line of reference.split("\n")) {
    const list = orderWords(line);
    for (let index = 0; index + 1 < list.length; index++) pairs.add(`${list[index]} ${list[index + 1]}`);
  }
  let lines = 0;
  let inOrder = 0;
  for (const line of extracted.split("\n")) {
    const list = orderWords(line);
    let judged = 0;
    let right = 0;
    for (let index = 0; index + 1 < list.length; index++) {
      if (!vocabulary.has(list[index]!) || !vocabulary.has(list[index + 1]!)) continue;
      judged++;
      if (pairs.has(`${list[index]} ${list[index + 1]}`)) right++;
    }
    if (judged === 0) continue;
    lines++;
    if (right === judged) inOrder++;
  }
  return { inOrder, lines };
}

/**
 * A word with its alef forms made one and "لا" read as "ال": a lam-alef ligature is one glyph for
 * two letters, and a reader that reverses a right-to-left run letter by letter puts them the wrong
 * way round. That misreads the word (word recall counts it), but it is not a word out of order.
 */
function orderKey(word: string): string {
  return word.replace(/[أإآ]/g, "ا").replace(/لا/g, "ال");
}

/** Lines of the extraction that match any of the running-matter patterns (page headers left in). */
export function runningMatterLeft(extracted: string, patterns: readonly RegExp[]): number {
  return extracted.split("\n").filter((line) => patterns.some((pattern) => pattern.test(line.trim()))).length;
}

/**
 * Chunks holding rows of a Markdown table that can be read alone: the table's header row (and its
 * separator) stands in the same chunk above its rows.
 */
export function standaloneTableChunks(chunks: readonly string[]): { standalone: number; withRows: number } {
  let standalone = 0;
  let withRows = 0;
  for (const chunk of chunks) {
    const lines = chunk.split("\n");
    const firstRow = lines.findIndex((line, index) => line.startsWith("|") && !isSeparator(line) && !isSeparator(lines[index + 1] ?? ""));
    if (firstRow < 0) continue;
    withRows++;
    const separator = lines.findIndex(isSeparator);
    if (separator > 0 && separator < firstRow && lines[separator - 1]!.startsWith("|")) standalone++;
  }
  return { standalone, withRows };
}

function isSeparator(line: string): boolean {
  return /^\|(?:\s*:?-{3,}:?\s*\|)+\s*$/.test(line);
}

/** What one document of the benchmark measured; null where the measure does not apply. */
export interface FidelityRow {
  wordRecall: number | null;
  headings: { found: number; total: number } | null;
  /** The heading target applies: 1.0, or 0.9 for a PDF from a tool that writes outlines. */
  headingTarget: number | null;
  pageBreaks: { midSentence: number; broken: number } | null;
  listNumbers: { found: number; total: number } | null;
  /** Lines whose words read in the reference's order (right-to-left text). */
  wordOrder: { inOrder: number; lines: number } | null;
  runningMatterLeft: number | null;
  tableChunks: { standalone: number; withRows: number } | null;
  /** A document that must be refused: did it fail with the expected reason? */
  expectedFailure: boolean | null;
}

export const WORD_RECALL_TARGET = 0.99;

/** The targets of issue 23 a row misses (empty: it passes). */
export function missedTargets(row: FidelityRow): string[] {
  const missed: string[] = [];
  if (row.wordRecall !== null && row.wordRecall < WORD_RECALL_TARGET) missed.push(`word recall ${row.wordRecall.toFixed(3)} < ${WORD_RECALL_TARGET}`);
  if (row.headings && row.headingTarget !== null && row.headings.total > 0 && row.headings.found / row.headings.total < row.headingTarget) {
    missed.push(`heading recall ${row.headings.found}/${row.headings.total} < ${row.headingTarget}`);
  }
  if (row.pageBreaks && row.pageBreaks.broken > 0) missed.push(`${row.pageBreaks.broken} mid-sentence page breaks`);
  if (row.listNumbers && row.listNumbers.found < row.listNumbers.total) missed.push(`list numbers ${row.listNumbers.found}/${row.listNumbers.total}`);
  if (row.wordOrder && row.wordOrder.inOrder < row.wordOrder.lines) missed.push(`${row.wordOrder.lines - row.wordOrder.inOrder} of ${row.wordOrder.lines} lines out of order`);
  if (row.runningMatterLeft !== null && row.runningMatterLeft > 0) missed.push(`${row.runningMatterLeft} running header/footer lines left`);
  if (row.tableChunks && row.tableChunks.standalone < row.tableChunks.withRows) missed.push(`table chunks standing alone ${row.tableChunks.standalone}/${row.tableChunks.withRows}`);
  if (row.expectedFailure === false) missed.push("not refused with the expected reason");
  return missed;
}
