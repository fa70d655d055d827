/**
 * The reranking port: a model that reorders retrieval candidates by their relevance to the query.
 * One module per provider under reranking/providers/ exports `create`; reranking/registry.ts loads them.
 */
export interface RerankCandidate {
  /** The caller's handle for the candidate (a chunk id); returned as given. */
  id: string;
  text: string;
}

export interface RerankedCandidate {
  id: string;
  /** The provider's relevance score, higher is better; comparable only within one call. */
  score: number;
}

export interface Reranker {
  readonly model: string;
  /** The best `topN` candidates, best first. */
  rerank(query: string, candidates: RerankCandidate[], topN: number): Promise<RerankedCandidate[]>;
}

/** A provider failure whose message is safe to log (no key in it). */
export class RerankError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly options: { status?: number; retryable?: boolean } = {},
  ) {
    super(message);
    this.name = "RerankError";
  }
}

/**
 * Orders a provider's answer: each entry must name a candidate by its position, once, with a finite
 * score; the best `topN` come back best first, whatever order the provider used.
 */
export function rankedFromIndexes(
  provider: string,
  candidates: RerankCandidate[],
  scored: { index: unknown; score: unknown }[],
  topN: number,
): RerankedCandidate[] {
  const seen = new Set<number>();
  const ranked: RerankedCandidate[] = [];
  for (const { index, score } of scored) {
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= candidates.length || seen.has(index)) {
      throw new RerankError(provider, `the reranker returned an unknown or repeated candidate index ${String(index)}`);
    }
    if (typeof score !== "number" || !Number.isFinite(score)) throw new RerankError(provider, "the reranker returned a score that is not a number");
    seen.add(index);
    ranked.push({ id: candidates[index]!.id, score });
  }
  return ranked.sort((a, b) => b.score - a.score).slice(0, topN);
}
