/**
 * The reranking port: a model that reorders retrieval candidates by their relevance to the query.
 * One module per provider under reranking/ exports `createReranker`; reranking/registry.ts names them.
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

/** A provider failure whose message is safe to log and to show; `retryable` as for embeddings. */
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
