import * as z from "../platform/zod.ts";
import { metadataFilter } from "./metadata-filter.ts";
import { RERANK_MODELS } from "./hosting.ts";

export const EXPANSION_LIMITS = {
  /** Chunks on either side of a hit. */
  neighbours: 5,
  /** A document this short (in chunks) is returned whole with `wholeDocument`. */
  wholeDocumentChunks: 12,
  /** The longest overlap between two chunks looked for when joining them. */
  overlapCharacters: 4_000,
} as const;

const neighbourCount = z._default(z.number().check(z.int(), z.gte(0), z.lte(EXPANSION_LIMITS.neighbours)), 1);

/**
 * Neighbour expansion: each hit also comes back as a `passage`, the hit with the chunks before and
 * after it in its document (or the whole document when it has at most
 * EXPANSION_LIMITS.wholeDocumentChunks chunks and `wholeDocument` is set), so a reader sees the
 * context chunking cut off.
 */
export const expansionInput = z.object({
  before: neighbourCount,
  after: neighbourCount,
  wholeDocument: z._default(z.boolean(), false),
});

export type Expansion = z.output<typeof expansionInput>;

/** Retrieval settings search and chat share: how many chunks, which ones, how they are reranked and expanded. */
export const retrievalFields = {
  expand: z.optional(expansionInput),
  topK: z._default(z.number().check(z.int(), z.gte(1), z.lte(100)), 10),
  minScore: z.optional(z.number().check(z.gte(0), z.lte(1))),
  filter: z.optional(metadataFilter),
  rerank: z._default(z.boolean(), true),
  rerankLimit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(100))),
  rerankModel: z.optional(z.enum(RERANK_MODELS)),
  /**
   * Hybrid only: the weight of semantic similarity against keyword (BM25) relevance, 0–1; by
   * default the namespace's embedder's (catalogs/embedding-providers.ts `hybridSemanticWeight`).
   */
  semanticWeight: z.optional(z.number().check(z.gte(0), z.lte(1))),
};

const SEARCH_MODES = ["semantic", "keyword", "hybrid"] as const;
export const searchMode = (fallback: (typeof SEARCH_MODES)[number]) => z._default(z.enum(SEARCH_MODES), fallback);

/** The reranker returns at most the candidates it was given. */
export const rerankLimitWithinTopK = z.superRefine((value: { topK: number; rerankLimit?: number | undefined }, context) => {
  if (value.rerankLimit !== undefined && value.rerankLimit > value.topK) {
    context.addIssue({ code: "custom", path: ["rerankLimit"], message: `must be at most topK (${value.topK})` });
  }
});

/**
 * The search request of the agentset API, plus `mode: "hybrid"`. `rerank`, `rerankLimit` and
 * `rerankModel` are served by workflows/rerank.ts.
 */
export const searchBody = z
  .object({
    query: z.string().check(z.minLength(1), z.maxLength(10_000), z.refine((query) => query.trim() !== "", "must contain more than whitespace")),
    ...retrievalFields,
    includeMetadata: z._default(z.boolean(), true),
    includeRelationships: z.optional(z.boolean()),
    mode: searchMode("semantic"),
    keywordFilter: z.optional(z.string().check(z.maxLength(1000))),
  })
  .check(rerankLimitWithinTopK);

export type SearchRequest = z.output<typeof searchBody>;
