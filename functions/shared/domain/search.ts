import { z } from "zod";
import { metadataFilter } from "../vector-store/filter.ts";
import { RERANK_MODELS } from "./hosting.ts";

/**
 * The search request of the agentset API, plus `mode: "hybrid"`. Reranking fields are accepted
 * for compatibility; no reranker is configured, so results keep their retrieval order and carry no
 * `rerankScore`.
 */
export const searchBody = z
  .object({
    query: z.string().min(1).max(10_000),
    topK: z.number().int().min(1).max(100).default(10),
    minScore: z.number().min(0).max(1).optional(),
    filter: metadataFilter.optional(),
    includeMetadata: z.boolean().default(true),
    includeRelationships: z.boolean().optional(),
    mode: z.enum(["semantic", "keyword", "hybrid"]).default("semantic"),
    rerank: z.boolean().default(true),
    rerankLimit: z.number().int().min(1).max(100).optional(),
    rerankModel: z.enum(RERANK_MODELS).optional(),
    keywordFilter: z.string().max(1000).optional(),
  })
  .superRefine((value, context) => {
    if (value.rerankLimit !== undefined && value.rerankLimit > value.topK) {
      context.addIssue({ code: "custom", path: ["rerankLimit"], message: `must be at most topK (${value.topK})` });
    }
  });

export type SearchRequest = z.output<typeof searchBody>;
