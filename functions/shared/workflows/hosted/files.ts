import { getDocument, getDocuments } from "../../db/documents.ts";
import { notFound } from "../../domain/errors.ts";
import { DELETION_STATUSES } from "../../domain/statuses.ts";
import { storedFileUrl } from "../downloads.ts";
import type { PublishedPage } from "./page.ts";

/**
 * The source files a hosted page hands out (its search tab's links), apart from the search itself
 * so the function that signs the links does not bundle retrieval and reranking.
 */

/** A page's source-file link is opened by a click, not kept: it need not last longer. */
const PAGE_DOWNLOAD_SECONDS = 300;

/** Which of these documents have an uploaded file the page may hand out (see pageSourceFileUrl). */
export async function pageFiles(page: PublishedPage, documentIds: string[]): Promise<Set<string>> {
  if (documentIds.length === 0) return new Set();
  const documents = await getDocuments(documentIds, ["id", "namespaceId", "tenantId", "status", "source.type"]);
  return new Set([...documents.values()].filter((document) => servesFile(page, document)).map((document) => document.id));
}

function servesFile<D extends { namespaceId: string; tenantId: string | null; status: string; source?: { type: string } }>(
  page: PublishedPage,
  document: D,
): document is D & { source: { type: "MANAGED_FILE" } } {
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
  const document = await getDocument(documentId);
  if (!document || !servesFile(page, document)) throw missing();
  return storedFileUrl(document, document.source.key, missing, PAGE_DOWNLOAD_SECONDS);
}
