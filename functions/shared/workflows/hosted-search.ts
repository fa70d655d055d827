import { getDocuments } from "../db/documents.ts";
import { forbidden, notFound } from "../domain/errors.ts";
import { chunkLocation, citedHit, type HostedSearchHit } from "../domain/hosted-page.ts";
import { type HostingRecord, RERANK_MODELS } from "../domain/hosting.ts";
import type { SearchRequest } from "../domain/search.ts";
import { DELETION_STATUSES } from "../domain/statuses.ts";
import { headObject } from "../storage/objects.ts";
import { fileNameOfKey } from "../storage/object-keys.ts";
import { presignDownload } from "../storage/presign.ts";
import { highlightRanges, queryTerms, snippetWindow } from "../text/highlight.ts";
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

/** Characters of a hit shown before "Show more": a few lines, enough to judge it. */
export const SNIPPET_CHARACTERS = 300;
/** A page's source-file link is opened by a click, not kept: it need not last longer. */
export const PAGE_DOWNLOAD_SECONDS = 300;

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

/** Which of these documents have an uploaded file the page may hand out (see pageSourceFileUrl). */
async function pageFiles(page: PublishedPage, documentIds: string[]): Promise<Set<string>> {
  if (documentIds.length === 0) return new Set();
  const documents = await getDocuments(documentIds, ["id", "namespaceId", "tenantId", "status", "source.type"]);
  return new Set([...documents.values()].filter((document) => servesFile(page, document)).map((document) => document.id));
}

function servesFile(page: PublishedPage, document: { namespaceId: string; tenantId: string | null; status: string; source?: { type: string } }): boolean {
  return (
    document.namespaceId === page.namespace.id &&
    // Tenant-scoped content is never reachable from a page, as in search.
    document.tenantId === null &&
    !(DELETION_STATUSES as readonly string[]).includes(document.status) &&
    document.source?.type === "MANAGED_FILE"
  );
}

/**
 * A short-lived presigned GET of a document's uploaded file, for the page's search tab: only a
 * document of the page's namespace, without a tenant, not being deleted, uploaded as a file. Any
 * other id is "not found" alike, so the page tells nothing about documents it does not show.
 */
export async function pageSourceFileUrl(page: PublishedPage, documentId: string): Promise<string> {
  const missing = () => notFound(`No source file of document ${documentId} on this page.`);
  const document = (await getDocuments([documentId])).get(documentId);
  if (!document || !servesFile(page, document) || document.source.type !== "MANAGED_FILE") throw missing();
  const head = await headObject(document.source.key);
  if (!head) throw missing();
  return presignDownload(document.source.key, document.name ?? fileNameOfKey(document.source.key), head.contentType, PAGE_DOWNLOAD_SECONDS);
}
