import { forbidden } from "../../domain/errors.ts";
import { chunkLocation, citedHit, type HostedSearchHit } from "../../domain/hosted/page.ts";
import { type HostingRecord, RERANK_MODELS } from "../../domain/hosting.ts";
import type { SearchRequest } from "../../domain/search.ts";
import { highlightRanges, queryTerms, snippetWindow } from "../../text/highlight.ts";
import type { PublishedPage } from "./page.ts";
import { pageFiles } from "./files.ts";
import { rerankResults } from "../rerank.ts";
import { search } from "../search.ts";

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

/** Characters of a hit shown before "Show more": a few lines, enough to judge it. */
const SNIPPET_CHARACTERS = 300;

/** The search tab, over untenanted records only. */
export async function searchPublishedPage(page: PublishedPage, query: string): Promise<HostedSearchHit[]> {
  const { hosting, namespace } = page;
  if (!hosting.searchEnabled) throw forbidden("Search is not enabled on this page.");
  const request = pageRetrieval(hosting, query);
  const { results } = await rerankResults(namespace, request, await search(namespace, null, request));
  const terms = queryTerms(query);
  const hits = results.map((result) => {
    const hit = citedHit(result, hosting.citationMetadataPath);
    const highlights = highlightRanges(result.text, terms);
    const [start, end] = snippetWindow(result.text, highlights, SNIPPET_CHARACTERS);
    const documentId = typeof result.metadata?.documentId === "string" ? result.metadata.documentId : null;
    return {
      ...hit,
      documentId,
      location: chunkLocation(result.metadata),
      snippet: { start, end },
      highlights: highlights.map(([from, to]) => ({ start: from, end: to })),
      sourceFile: false,
    };
  });
  const withFiles = await pageFiles(page, hits.filter((hit) => hit.citation === null && hit.documentId !== null).map((hit) => hit.documentId!));
  return hits.map((hit) => (hit.documentId !== null && hit.citation === null && withFiles.has(hit.documentId) ? { ...hit, sourceFile: true } : hit));
}
