import { forbidden } from "../domain/errors.ts";
import { citedHit, type HostedHit } from "../domain/hosted-page.ts";
import { type HostingRecord, RERANK_MODELS } from "../domain/hosting.ts";
import type { SearchRequest } from "../domain/search.ts";
import type { PublishedPage } from "./hosted.ts";
import { rerankResults } from "./rerank.ts";
import { search } from "./search.ts";

/** How a page retrieves, for its search tab and its chat alike: hybrid, the hosting's topK, reranked with its rerankConfig. */
export function pageRetrieval(hosting: HostingRecord, query: string): SearchRequest {
  const model = (RERANK_MODELS as readonly string[]).includes(hosting.rerankConfig.model) ? (hosting.rerankConfig.model as SearchRequest["rerankModel"]) : undefined;
  return {
    query,
    topK: hosting.topK,
    includeMetadata: true,
    mode: "hybrid",
    rerank: true,
    rerankLimit: Math.min(hosting.rerankConfig.limit, hosting.topK),
    ...(model ? { rerankModel: model } : {}),
  };
}

/** The search tab, over untenanted records only. */
export async function searchPublishedPage(page: PublishedPage, query: string): Promise<HostedHit[]> {
  const { hosting, namespace } = page;
  if (!hosting.searchEnabled) throw forbidden("Search is not enabled on this page.");
  const request = pageRetrieval(hosting, query);
  const { results } = await rerankResults(namespace, request, await search(namespace, null, request));
  return results.map((result) => citedHit(result, hosting.citationMetadataPath));
}
