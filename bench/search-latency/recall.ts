import { type VectorPartition } from "../../functions/shared/domain/partitions.ts";
import { matchesFilter, type MetadataFilter } from "../../functions/shared/domain/metadata-filter.ts";
import { type EmbeddedVectorStore } from "../../functions/shared/vector-store/embedded.ts";

/**
 * The reference the benchmark holds the local store's answers to: a naive exact scan written for
 * clarity, not speed (one sequential sum per record, every record visited, ties to the smaller key
 * as the store orders them). It shares nothing with the store's scan but the stored vectors.
 */

export interface ReferenceQuery {
  vector: Float32Array;
  filter?: MetadataFilter;
}

export interface ReferenceMatch {
  key: string;
  /** Cosine similarity; the store reports (1 + cos) / 2. */
  cos: number;
}

function ranksAbove(a: ReferenceMatch, b: ReferenceMatch): boolean {
  return a.cos > b.cos || (a.cos === b.cos && a.key < b.key);
}

/** The exact top `k` of every query, in one pass over the partition. */
export function exactTopK(store: EmbeddedVectorStore, partition: VectorPartition, queries: readonly ReferenceQuery[], k: number): ReferenceMatch[][] {
  const units = queries.map(({ vector }) => {
    // Normalised and rounded to float32 the way the store normalises the vectors it keeps.
    const scale = 1 / Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
    return Float32Array.from(vector, (x) => x * scale);
  });
  const best: ReferenceMatch[][] = queries.map(() => []);
  store.forEachEntry(partition, (key, stored, metadata) => {
    queries.forEach((query, index) => {
      if (query.filter && !matchesFilter(metadata, query.filter)) return;
      const unit = units[index]!;
      let cos = 0;
      for (let i = 0; i < unit.length; i++) cos += stored[i]! * unit[i]!;
      const list = best[index]!;
      const match = { key, cos };
      if (list.length === k && !ranksAbove(match, list[k - 1]!)) return;
      let at = list.length;
      while (at > 0 && ranksAbove(match, list[at - 1]!)) at--;
      list.splice(at, 0, match);
      if (list.length > k) list.pop();
    });
  });
  return best;
}

export interface RecallResult {
  queries: number;
  k: number;
  /** Mean share of the reference top k that the answer holds. */
  recall: number;
  /** Queries answered with exactly the reference's keys in the reference's order. */
  identicalOrder: number;
  /** Largest |score − (1 + cos) / 2| over matching keys. */
  maxScoreDifference: number;
}

/** Compares answers (ids with store scores) with the reference; `idOf` maps a reference key to the answer's id. */
export function compareWithReference(
  answers: readonly { id: string; score: number }[][],
  reference: readonly ReferenceMatch[][],
  k: number,
  idOf: (key: string) => string = (key) => key,
): RecallResult {
  let recall = 0;
  let identicalOrder = 0;
  let maxScoreDifference = 0;
  answers.forEach((answer, index) => {
    const expected = reference[index]!.slice(0, k).map((match) => ({ id: idOf(match.key), score: (1 + match.cos) / 2 }));
    const got = answer.slice(0, k);
    const gotScores = new Map(got.map((hit) => [hit.id, hit.score]));
    let found = 0;
    for (const hit of expected) {
      const score = gotScores.get(hit.id);
      if (score === undefined) continue;
      found += 1;
      maxScoreDifference = Math.max(maxScoreDifference, Math.abs(score - hit.score));
    }
    recall += expected.length === 0 ? 1 : found / expected.length;
    if (got.length === expected.length && got.every((hit, rank) => hit.id === expected[rank]!.id)) identicalOrder += 1;
  });
  return { queries: answers.length, k, recall: recall / Math.max(1, answers.length), identicalOrder, maxScoreDifference };
}
