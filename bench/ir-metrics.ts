/**
 * Ranking metrics as trec_eval computes them, for one query: `ranking` is the ranked list of
 * document ids a system returned (best first, no repeats), `judged` maps each judged-relevant
 * document to its grade (> 0). Means over queries are taken by the caller over every query that has
 * at least one relevant document, as trec_eval and BEIR do.
 */

export type Judgments = ReadonlyMap<string, number>;

/** Average precision over the returned list: the mean, over all relevant documents, of the precision at each one's rank (0 for those not returned). */
export function averagePrecision(ranking: readonly string[], judged: Judgments): number {
  if (judged.size === 0) return 0;
  let found = 0;
  let sum = 0;
  ranking.forEach((document, index) => {
    if ((judged.get(document) ?? 0) > 0) {
      found += 1;
      sum += found / (index + 1);
    }
  });
  return sum / judged.size;
}

/** nDCG@k with linear gain (grade / log2(rank + 1)), the form trec_eval's ndcg_cut and BEIR report. */
export function ndcgAtK(ranking: readonly string[], judged: Judgments, k: number): number {
  const dcg = ranking.slice(0, k).reduce((sum, document, index) => sum + (judged.get(document) ?? 0) / Math.log2(index + 2), 0);
  const ideal = [...judged.values()]
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, grade, index) => sum + grade / Math.log2(index + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** 1 / rank of the first relevant document returned, 0 when none is. */
export function reciprocalRank(ranking: readonly string[], judged: Judgments): number {
  const index = ranking.findIndex((document) => (judged.get(document) ?? 0) > 0);
  return index === -1 ? 0 : 1 / (index + 1);
}

/** Share of the relevant documents found in the first k returned. */
export function recallAtK(ranking: readonly string[], judged: Judgments, k: number): number {
  if (judged.size === 0) return 0;
  return ranking.slice(0, k).filter((document) => (judged.get(document) ?? 0) > 0).length / judged.size;
}

export interface QualityScores {
  map: number;
  ndcgAt10: number;
  mrr: number;
  recallAt100: number;
}

/** The four metrics averaged over the queries (each query: its ranking and its judgments). */
export function meanScores(runs: readonly { ranking: readonly string[]; judged: Judgments }[]): QualityScores {
  const mean = (score: (run: (typeof runs)[number]) => number) => (runs.length === 0 ? 0 : runs.reduce((sum, run) => sum + score(run), 0) / runs.length);
  return {
    map: mean((run) => averagePrecision(run.ranking, run.judged)),
    ndcgAt10: mean((run) => ndcgAtK(run.ranking, run.judged, 10)),
    mrr: mean((run) => reciprocalRank(run.ranking, run.judged)),
    recallAt100: mean((run) => recallAtK(run.ranking, run.judged, 100)),
  };
}

/**
 * A reference ranking by textbook Okapi BM25 (k1 1.2, b 0.75, Lucene's idf ln(1 + (N - df + 0.5) /
 * (df + 0.5))) over lower-cased runs of letters and digits by default, with no stemming and no stop words: what
 * an out-of-the-box BM25 gives on the same texts, to set our keyword mode beside. Another `tokenize`
 * (stemming, say) gives the same scoring over other terms. Evaluation only; the product's keyword
 * engine is not this.
 */
export function referenceBm25(
  documents: readonly { id: string; text: string }[],
  tokenize: (text: string) => string[] = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [],
  k1 = 1.2,
  b = 0.75,
) {
  const frequencies = documents.map((document) => {
    const counts = new Map<string, number>();
    for (const term of tokenize(document.text)) counts.set(term, (counts.get(term) ?? 0) + 1);
    return { id: document.id, counts, length: [...counts.values()].reduce((sum, count) => sum + count, 0) };
  });
  const documentFrequency = new Map<string, number>();
  for (const { counts } of frequencies) for (const term of counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const averageLength = frequencies.reduce((sum, document) => sum + document.length, 0) / Math.max(1, frequencies.length);
  const total = frequencies.length;
  return (query: string, topK: number): string[] => {
    const terms = tokenize(query);
    const scored = frequencies.map(({ id, counts, length }) => {
      let score = 0;
      for (const term of terms) {
        const tf = counts.get(term) ?? 0;
        if (tf === 0) continue;
        const df = documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
        score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / averageLength));
      }
      return { id, score };
    });
    return scored
      .filter((entry) => entry.score > 0)
      .sort((x, y) => y.score - x.score || x.id.localeCompare(y.id, "en", { numeric: true }))
      .slice(0, topK)
      .map((entry) => entry.id);
  };
}
