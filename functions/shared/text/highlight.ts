import { STOP_WORDS, stem, tokenSpans, tokenize } from "./analyser.ts";

/**
 * Where a query's words stand in a passage, and the part of it worth showing: the hosted search
 * tab's snippets. Words are compared as keyword search compares them (the analyser's tokens and
 * stems), so "refunded" marks "refunds". Only ranges are computed here; the page draws them as
 * text nodes and <mark> elements, so nothing from a document is ever read as HTML.
 */

export type Range = [start: number, end: number];

/** The words of a query worth marking: stemmed, without stop words. */
export function queryTerms(query: string): Set<string> {
  return new Set(tokenize(query).filter((word) => !STOP_WORDS.has(word)).map(stem));
}

/** Where the query's words occur in the text, in order (offsets into the text as given). */
export function highlightRanges(text: string, terms: ReadonlySet<string>): Range[] {
  if (terms.size === 0) return [];
  const ranges: Range[] = [];
  for (const span of tokenSpans(text)) {
    if (!terms.has(stem(span.word))) continue;
    const last = ranges.at(-1);
    // One token can fold into several words (a ligature); mark its span once.
    if (last && last[0] === span.start) continue;
    ranges.push([span.start, span.end]);
  }
  return ranges;
}

/** Marks considered when choosing a window; a chunk is at most a few thousand characters. */
const MAX_RANGES = 1000;
/** How far a cut may move to land between words instead of inside one. */
const WORD_SNAP = 24;

/**
 * The part of `text` (at most `maxLength` characters) that holds the most of the query's distinct
 * words, then the most marks, centred on them and cut between words; the start of the text when
 * no word matches. The whole text when it fits.
 */
export function snippetWindow(text: string, ranges: readonly Range[], maxLength: number): Range {
  if (text.length <= maxLength) return [0, text.length];
  const marks = ranges.slice(0, MAX_RANGES);
  if (marks.length === 0) return [0, snapEnd(text, maxLength, 0)];
  const wordAt = marks.map(([start, end]) => stem(tokenize(text.slice(start, end))[0] ?? ""));
  let best = { first: 0, last: 0, distinct: 0, count: 0 };
  for (let first = 0; first < marks.length; first++) {
    const seen = new Set<string>();
    let last = first;
    for (let next = first; next < marks.length && marks[next]![1] - marks[first]![0] <= maxLength; next++) {
      seen.add(wordAt[next]!);
      last = next;
    }
    const count = last - first + 1;
    if (seen.size > best.distinct || (seen.size === best.distinct && count > best.count)) best = { first, last, distinct: seen.size, count };
  }
  const from = marks[best.first]![0];
  const to = marks[best.last]![1];
  // Centre the marked stretch, a little more context before it than after (it reads as a lead-in).
  const spare = maxLength - (to - from);
  let start = Math.max(0, from - Math.ceil(spare * 0.6));
  const end = Math.min(text.length, start + maxLength);
  start = Math.max(0, end - maxLength);
  return [snapStart(text, start, from), snapEnd(text, end, to)];
}

/**
 * Moves a cut forward to the start of a sentence in the lead-in when there is one (a snippet reads
 * better from there), else to the start of a word; never past `limit` (the first mark).
 */
function snapStart(text: string, start: number, limit: number): number {
  if (start === 0) return start;
  const sentence = /[.!?。！？]\s*/g;
  sentence.lastIndex = start;
  for (let found = sentence.exec(text); found && found.index < limit; found = sentence.exec(text)) {
    const next = found.index + found[0].length;
    if (next <= limit && next > start) return next;
  }
  if (/\s/.test(text[start - 1]!)) return start;
  for (let at = start; at < Math.min(limit, start + WORD_SNAP); at++) if (/\s/.test(text[at]!)) return at + 1;
  return isLowSurrogate(text, start) ? start + 1 : start;
}

/** Moves a cut back to the end of a word, never before `limit` (the last mark). */
function snapEnd(text: string, end: number, limit: number): number {
  if (end >= text.length || /\s/.test(text[end]!)) return end;
  for (let at = end; at > Math.max(limit, end - WORD_SNAP); at--) if (/\s/.test(text[at - 1]!)) return at - 1;
  return isLowSurrogate(text, end) ? end - 1 : end;
}

/** Whether a cut at `at` would split a character outside the Basic Multilingual Plane. */
function isLowSurrogate(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff;
}
