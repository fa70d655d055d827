import { countRequest, type RateLimit } from "../db/rate-limits.ts";
import { forbidden } from "../domain/errors.ts";
import { citationAt, type HostedHit } from "../domain/hosted-page.ts";
import { RERANK_MODELS } from "../domain/hosting.ts";
import type { SearchRequest } from "../domain/search.ts";
import type { PublishedPage } from "./hosted.ts";
import { rerankResults } from "./rerank.ts";
import { search } from "./search.ts";

/** Per visitor (source address) and per page, each minute; see README "Hosted pages". */
export const HOSTED_LIMITS = { perVisitorPerMinute: 30, perPagePerMinute: 600 };

/** Counts a visitor's request; the refusal says which limit and for how long. */
export function countVisit(slug: string, visitor: string): ReturnType<typeof countRequest> {
  const limits: RateLimit[] = [
    { name: `hosted:${slug}:visitor:${visitor}`, limit: HOSTED_LIMITS.perVisitorPerMinute, windowSeconds: 60 },
    { name: `hosted:${slug}`, limit: HOSTED_LIMITS.perPagePerMinute, windowSeconds: 60 },
  ];
  return countRequest(limits);
}

/** The search tab: hybrid retrieval over untenanted records with the hosting's topK, reranked with its rerankConfig. */
export async function searchPublishedPage(page: PublishedPage, query: string): Promise<HostedHit[]> {
  const { hosting, namespace } = page;
  if (!hosting.searchEnabled) throw forbidden("Search is not enabled on this page.");
  const model = (RERANK_MODELS as readonly string[]).includes(hosting.rerankConfig.model) ? (hosting.rerankConfig.model as SearchRequest["rerankModel"]) : undefined;
  const request: SearchRequest = {
    query,
    topK: hosting.topK,
    includeMetadata: true,
    mode: "hybrid",
    rerank: true,
    rerankLimit: Math.min(hosting.rerankConfig.limit, hosting.topK),
    ...(model ? { rerankModel: model } : {}),
  };
  const { results } = await rerankResults(namespace, request, await search(namespace, null, request));
  return results.map((result) => ({
    id: result.id,
    text: result.text,
    score: result.score,
    ...(result.rerankScore !== undefined ? { rerankScore: result.rerankScore } : {}),
    documentName: typeof result.metadata?.filename === "string" ? result.metadata.filename : null,
    citation: citationAt(result.metadata, hosting.citationMetadataPath),
  }));
}
