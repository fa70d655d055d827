import type { RouteContract } from "../../shared/http/contract.ts";
import { namespacePath } from "../../shared/domain/params.ts";
import { searchBody } from "../../shared/domain/search.ts";

export const search = {
  operationId: "search",
  method: "POST",
  path: "/v1/namespace/{namespaceId}/search",
  summary: "Search a namespace (semantic, keyword or hybrid)",
  tag: "Search",
  description:
    "With `rerank: true` (the default) the namespace's reranker (else the deployment's: Amazon Bedrock Rerank when deployed) reorders the `topK` retrieved chunks and the best `rerankLimit` come back, best first, each with a `rerankScore`. " +
    "`rerankModel` picks a model where the reranker has it (README, \"Reranking\"). Without a reranker, or when it fails, results keep their retrieval order without `rerankScore`, and `x-rerank` says so. " +
    "With `expand: {before, after}` (0–5 chunks each, default 1) every result also carries a `passage`: the hit joined with the chunks around it in its document's current version (overlaps removed), `passage.hit` giving the hit's character range in it; with `wholeDocument: true` a document of at most 12 chunks comes back whole.",
  successHeaders: {
    "x-rerank": {
      description:
        "Present when the request asked for reranking: `reranked`; `unavailable` when no reranker is configured (the offline local stack); `failed` when the reranker failed. In the last two cases the results are in retrieval order.",
      schema: { type: "string", enum: ["reranked", "unavailable", "failed"] },
    },
    "x-rerank-model": {
      description: "The reranker that served (or failed) the request, as `<provider>:<model>`, e.g. `bedrock:cohere.rerank-v3-5:0`.",
      schema: { type: "string" },
    },
  },
  request: { path: namespacePath, tenant: true, namespace: "active", body: searchBody },
  response: { status: 200, data: "SearchResult", list: true },
} as const satisfies RouteContract;
