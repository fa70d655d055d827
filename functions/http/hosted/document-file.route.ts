import type { RouteContract } from "../../shared/http/contract.ts";
import { hostedDocumentPath, hostedSlugPath } from "../../shared/domain/hosted/page.ts";

export const getHostedDocumentFile = {
  operationId: "getHostedDocumentFile",
  method: "GET",
  path: "/hosted/{slug}/documents/{documentId}/file",
  summary: "A search hit's source file: a redirect to a presigned download lasting 5 minutes (no key)",
  tag: "Hosted pages",
  successHeaders: { location: { description: "The presigned GET of the uploaded file, saved under the document's name.", schema: { type: "string" } } },
  description:
    "Only for a document of the page's namespace without a tenant, not being deleted, uploaded as a file (MANAGED_FILE); any other id is 404. Admitted and counted as a search: 403 on a protected page without a valid session cookie, 429 (with `Retry-After`) past the search limits.",
  request: { public: true, path: hostedDocumentPath },
  response: { status: 302, raw: "text/plain" },
} as const satisfies RouteContract;
