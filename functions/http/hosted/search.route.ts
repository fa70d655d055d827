import type { RouteContract } from "../../shared/http/contract.ts";
import { hostedSearchBody, hostedSlugPath } from "../../shared/domain/hosted/page.ts";

export const searchHostedPage = {
  operationId: "searchHostedPage",
  method: "POST",
  path: "/hosted/{slug}/search",
  summary: "The search tab of a hosted page (no key)",
  tag: "Hosted pages",
  description:
    "Hybrid search over the namespace's records without a tenant, with the hosting's `topK` and `rerankConfig`. Each hit carries its document, where in it the chunk starts (`location`), a `snippet` of at most about 300 characters around the best-matching passage and the query's words in the text (`highlights`, matched by the keyword analyser's stems), as UTF-16 offsets into `text`; `sourceFile` says whether the page serves the uploaded file (see `getHostedDocumentFile`). 403 when search is disabled, or the page is protected and the request carries no valid session cookie; 429 (with `Retry-After`) past 30 searches a minute per visitor or 600 per page.",
  request: { public: true, path: hostedSlugPath, body: hostedSearchBody },
  response: { status: 200, data: "HostedSearchHit", list: true },
} as const satisfies RouteContract;
