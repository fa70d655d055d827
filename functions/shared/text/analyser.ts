/**
 * The text analyser the service uses wherever it compares words: the LOCAL embedder's features and
 * the keyword index's terms come from the same tokens and stems, so both see a text alike.
 */

// CJK scripts do not separate words with spaces, so each character is a token and the adjacent-pair
// features stand in for words. Other letters and digits form words. The `v` flag (set subtraction)
// keeps a Latin run from swallowing a following CJK character; it is built from a string because
// the compile target predates the flag.
const CJK = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}`;
const TOKEN_PATTERN = new RegExp(String.raw`[${CJK}]|[[\p{L}\p{N}\p{M}]--[${CJK}]]+`, "gv");

export const STOP_WORDS = new Set(
  (
    "a an and are as at be been being but by can could did do does doing for from had has have having he her " +
    "here hers him his how i if in into is it its itself just me more most my no nor not of off on once only or " +
    "other our ours out over own same she should so some such than that the their theirs them then there these " +
    "they this those through to too under until up very was we were what when where which while who whom why " +
    "will with would you your yours yourself s t d ll m re ve don doesn didn isn aren wasn weren won wouldn"
  ).split(" "),
);

function isLowerAscii(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    if (code < 97 || code > 122) return false;
  }
  return true;
}

function isVowel(code: number): boolean {
  return code === 97 || code === 101 || code === 105 || code === 111 || code === 117 || code === 121;
}

function hasVowel(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (isVowel(word.charCodeAt(i))) return true;
  return false;
}

/** "runn" → "run", "stopp" → "stop"; doubled l, s and z are usually part of the stem ("fall"). */
function undouble(word: string): string {
  const n = word.length;
  if (n < 3) return word;
  const last = word.charCodeAt(n - 1);
  if (last !== word.charCodeAt(n - 2) || isVowel(last)) return word;
  if (last === 108 || last === 115 || last === 122) return word;
  return word.slice(0, -1);
}

/**
 * A deliberately small English suffix stripper (plurals, -ing, -ed, final -e). It only has to map
 * the common inflections of a word to one form consistently, not to produce dictionary stems, so
 * "index", "indexes", "indexed" and "indexing" all become "index". Words with anything but a–z are
 * left alone so other languages are not mangled.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !isLowerAscii(word)) return word;
  let w = word;
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("xes") || w.endsWith("ches") || w.endsWith("shes")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);

  if (w.endsWith("ied") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("ing") && w.length >= 6 && hasVowel(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length >= 5 && hasVowel(w.slice(0, -2))) w = undouble(w.slice(0, -2));

  // Dropping a final e joins "create"/"creating"/"created" and "type"/"typed"/"typing".
  if (w.length >= 4 && w.endsWith("e") && !w.endsWith("ee")) w = w.slice(0, -1);
  return w;
}

/** Words as the embedder sees them: lowercased, NFKC-folded, CJK split into characters. */
export function tokenize(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(TOKEN_PATTERN) ?? [];
}

/**
 * The same words as `tokenize`, with where each stands in the text as given (UTF-16 offsets), for
 * marking them in it: each match is folded as `tokenize` folds the whole text.
 */
export function tokenSpans(text: string): { start: number; end: number; word: string }[] {
  const spans: { start: number; end: number; word: string }[] = [];
  for (const match of text.matchAll(TOKEN_PATTERN)) {
    for (const word of tokenize(match[0])) spans.push({ start: match.index, end: match.index + match[0].length, word });
  }
  return spans;
}

// Pictographs and other symbols carry meaning in a query ("🍕", "©") but are no word to tokenize:
// full-text search keeps each as a term of its own, so an emoji-only query finds what contains it.
const SYMBOL_PATTERN = /\p{Extended_Pictographic}|\p{So}/gu;
const ONLY_MARKS = /^\p{M}+$/u;

/**
 * The terms full-text search indexes and queries with (the embedded store's BM25): the words of
 * `tokenize`, stemmed, then every pictograph or symbol character. CJK text is split into characters
 * by `tokenize`, so a CJK query matches the chunks that contain its characters.
 */
export function searchTerms(text: string): string[] {
  // A lone combining mark (an emoji's variation selector) is no term.
  const terms = tokenize(text).filter((token) => !ONLY_MARKS.test(token)).map(stem);
  const symbols = text.normalize("NFKC").match(SYMBOL_PATTERN);
  if (symbols) for (const symbol of symbols) terms.push(symbol);
  return terms;
}
