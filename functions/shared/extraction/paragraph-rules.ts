/**
 * When a paragraph runs on from one page to the next, judged from the text alone: shared by the
 * PDF reader (pdf-layout.ts, which also has the lines' positions) and by the worker joining page
 * ranges read in different steps (page-ranges.ts), which loads no PDF code.
 */

/** Ends a sentence (or a clause that a new paragraph may follow): terminal punctuation, possibly closed by a quote or bracket. */
export const SENTENCE_END = /[.!?:;。！？…؟]["'”’»)\]]*$/u;

/** A line that opens a list item or a new block on its own: a bullet, a number or letter with a full stop or bracket. */
export const BLOCK_START = /^(?:[•◦▪‣○●■□–—*-]\s|\(?\d{1,3}[.)]\s|\(?[a-z][.)]\s)/u;

/** Whether the next page's text continues the previous page's last paragraph: no sentence end, and a lower-case start or an open ending. */
export function textContinues(previous: string, next: string): boolean {
  const last = previous.trimEnd().split("\n").pop() ?? "";
  const first = next.trimStart().split("\n")[0] ?? "";
  if (last === "" || first === "" || /^#{1,6} /.test(last) || /^#{1,6} /.test(first)) return false;
  if (SENTENCE_END.test(last) || BLOCK_START.test(first)) return false;
  return /^\p{Ll}/u.test(first) || /[,–—-]$/.test(last);
}
