import type * as z from "../../functions/shared/platform/zod.ts";
import {
  chatAnswerWire,
  documentWire,
  downloadUrlWire,
  hostingWire,
  ingestJobWire,
  namespaceWire,
  reingestWire,
  hostedHitWire,
  hostedSearchHitWire,
  searchResultWire,
  signInRequestedWire,
  uploadTargetWire,
} from "../../functions/shared/http/wire-schemas.ts";

/**
 * What the OpenAPI document says of each route beyond its request schemas (which the handlers
 * carry): a name, a summary, the success response and whether the route can conflict with the
 * current state (409). Keyed by `METHOD path` of the route table; a route missing here fails the
 * document build, so a new route cannot ship undocumented.
 */
export interface OperationDoc {
  operationId: string;
  summary: string;
  tag: "Namespaces" | "Hosting" | "Uploads" | "Ingest jobs" | "Documents" | "Search" | "Chat" | "MCP" | "Hosted pages" | "Contract";
  success:
    | {
        status: 200 | 201;
        /** A component name from COMPONENTS; `list` wraps it in an array. */
        data: ComponentName;
        list?: boolean;
        /** The list carries a `pagination` object next to `data`. */
        paginated?: boolean;
        /** Also answered as the AI SDK's UI message stream (`text/event-stream`), when the request asks for a stream. */
        eventStream?: boolean;
      }
    | { status: 200 | 302 | 303 | 405; raw: "application/json" | "text/html" | "text/event-stream" | "text/plain" };
  /** Further non-error answers, without a body (MCP's 202 to a notification). */
  otherResponses?: Record<string, string>;
  /** Response headers of the success response, with what they mean. */
  successHeaders?: Record<string, { description: string; schema: Record<string, unknown> }>;
  /** 409 besides the "namespace is being deleted" that every route on an active namespace can answer. */
  conflicts?: string;
  description?: string;
}

export const COMPONENTS = {
  Namespace: namespaceWire,
  Hosting: hostingWire,
  UploadTarget: uploadTargetWire,
  IngestJob: ingestJobWire,
  ReingestResult: reingestWire,
  Document: documentWire,
  DownloadUrl: downloadUrlWire,
  SearchResult: searchResultWire,
  HostedHit: hostedHitWire,
  HostedSearchHit: hostedSearchHitWire,
  ChatAnswer: chatAnswerWire,
  SignInRequested: signInRequestedWire,
} satisfies Record<string, z.ZodMiniType>;

export type ComponentName = keyof typeof COMPONENTS;

const NS = "/v1/namespace/{namespaceId}";

export const OPERATIONS: Record<string, OperationDoc> = {
  "GET /v1/namespace": { operationId: "listNamespaces", summary: "List namespaces", tag: "Namespaces", success: { status: 200, data: "Namespace", list: true } },
  "POST /v1/namespace": {
    operationId: "createNamespace",
    summary: "Create a namespace",
    tag: "Namespaces",
    success: { status: 201, data: "Namespace" },
    conflicts: "the slug is taken in this organization",
  },
  [`GET ${NS}`]: { operationId: "getNamespace", summary: "Get a namespace", tag: "Namespaces", success: { status: 200, data: "Namespace" } },
  [`PATCH ${NS}`]: {
    operationId: "updateNamespace",
    summary: "Update a namespace",
    tag: "Namespaces",
    success: { status: 200, data: "Namespace" },
    conflicts: "the slug is taken, or the namespace changed meanwhile",
  },
  [`PUT ${NS}`]: {
    operationId: "replaceNamespace",
    summary: "Update a namespace (PUT form)",
    tag: "Namespaces",
    success: { status: 200, data: "Namespace" },
    conflicts: "the slug is taken, or the namespace changed meanwhile",
  },
  [`DELETE ${NS}`]: {
    operationId: "deleteNamespace",
    summary: "Delete a namespace and everything in it (queued)",
    tag: "Namespaces",
    success: { status: 200, data: "Namespace" },
    conflicts: "the namespace is already being deleted",
  },
  [`GET ${NS}/hosting`]: { operationId: "getHosting", summary: "Get the hosting configuration", tag: "Hosting", success: { status: 200, data: "Hosting" } },
  [`POST ${NS}/hosting`]: {
    operationId: "enableHosting",
    summary: "Enable hosting",
    tag: "Hosting",
    success: { status: 201, data: "Hosting" },
    conflicts: "hosting is already enabled",
  },
  [`PATCH ${NS}/hosting`]: {
    operationId: "updateHosting",
    summary: "Update the hosting configuration",
    tag: "Hosting",
    success: { status: 200, data: "Hosting" },
    conflicts: "the slug is taken, or the configuration changed meanwhile",
  },
  [`PUT ${NS}/hosting`]: {
    operationId: "replaceHosting",
    summary: "Update the hosting configuration (PUT form)",
    tag: "Hosting",
    success: { status: 200, data: "Hosting" },
    conflicts: "the slug is taken, or the configuration changed meanwhile",
  },
  [`DELETE ${NS}/hosting`]: {
    operationId: "deleteHosting",
    summary: "Delete the hosting configuration",
    tag: "Hosting",
    success: { status: 200, data: "Hosting" },
    conflicts: "the configuration changed meanwhile",
  },
  [`POST ${NS}/uploads`]: {
    operationId: "createUpload",
    summary: "Presigned URL for one file",
    tag: "Uploads",
    success: { status: 201, data: "UploadTarget" },
    description: "PUT the file to `url` with the declared Content-Type and size; then ingest it as a MANAGED_FILE with `key`.",
  },
  [`POST ${NS}/uploads/batch`]: {
    operationId: "createUploads",
    summary: "Presigned URLs for a batch of files",
    tag: "Uploads",
    success: { status: 201, data: "UploadTarget", list: true },
  },
  [`POST ${NS}/ingest-jobs`]: {
    operationId: "createIngestJob",
    summary: "Create an ingest job",
    tag: "Ingest jobs",
    success: { status: 201, data: "IngestJob" },
    conflicts: "the externalId is taken, or the deployment's vector index ceiling is reached",
  },
  [`GET ${NS}/ingest-jobs`]: {
    operationId: "listIngestJobs",
    summary: "List ingest jobs",
    tag: "Ingest jobs",
    success: { status: 200, data: "IngestJob", list: true, paginated: true },
  },
  [`GET ${NS}/ingest-jobs/{jobId}`]: { operationId: "getIngestJob", summary: "Get an ingest job", tag: "Ingest jobs", success: { status: 200, data: "IngestJob" } },
  [`DELETE ${NS}/ingest-jobs/{jobId}`]: {
    operationId: "deleteIngestJob",
    summary: "Delete an ingest job and its documents (queued)",
    tag: "Ingest jobs",
    success: { status: 200, data: "IngestJob" },
    conflicts: "the job is already being deleted, or changed meanwhile",
  },
  [`POST ${NS}/ingest-jobs/{jobId}/re-ingest`]: {
    operationId: "reingestJob",
    summary: "Re-ingest a job",
    tag: "Ingest jobs",
    success: { status: 200, data: "ReingestResult" },
    conflicts: "the job is not in a state that can be re-ingested (still running, being deleted)",
  },
  [`GET ${NS}/documents`]: {
    operationId: "listDocuments",
    summary: "List documents",
    tag: "Documents",
    success: { status: 200, data: "Document", list: true, paginated: true },
  },
  [`GET ${NS}/documents/{documentId}`]: { operationId: "getDocument", summary: "Get a document", tag: "Documents", success: { status: 200, data: "Document" } },
  [`DELETE ${NS}/documents/{documentId}`]: {
    operationId: "deleteDocument",
    summary: "Delete a document (queued)",
    tag: "Documents",
    success: { status: 200, data: "Document" },
    conflicts: "the document is already being deleted, or its job is still creating its documents",
  },
  [`POST ${NS}/documents/{documentId}/file-download-url`]: {
    operationId: "createFileDownloadUrl",
    summary: "Download URL of the uploaded file",
    tag: "Documents",
    success: { status: 200, data: "DownloadUrl" },
  },
  [`POST ${NS}/documents/{documentId}/chunks-download-url`]: {
    operationId: "createChunksDownloadUrl",
    summary: "Download URL of the chunks JSON",
    tag: "Documents",
    success: { status: 200, data: "DownloadUrl" },
    conflicts: "the document is not COMPLETED",
  },
  [`POST ${NS}/search`]: {
    operationId: "search",
    summary: "Search a namespace (semantic, keyword or hybrid)",
    tag: "Search",
    success: { status: 200, data: "SearchResult", list: true },
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
  },
  [`POST ${NS}/chat`]: {
    operationId: "chat",
    summary: "Answer a question from the namespace's content, citing its chunks",
    tag: "Chat",
    success: { status: 200, data: "ChatAnswer", eventStream: true },
    description:
      "Single-shot retrieval-augmented answer: the last user message is searched (the request's retrieval settings, hybrid by default, over the `x-tenant-id` partition), the best chunks are numbered and given to the model with the system prompt, and the answer cites them as [n] (`sources[n-1]`). With `expand` (as for search) each source's `text` is its passage around the hit, up to 4,000 characters. " +
      "The model is the request's `llmConfig`, else the namespace's hosting's, else the deployment's default (Amazon Bedrock when deployed; none on the offline local stack, which answers 422 naming `llmConfig`). " +
      "With `stream: true` (the default) the answer is the AI SDK's UI message stream (`text/event-stream`, header `x-vercel-ai-ui-message-stream: v1`): `start`, one `source-url` or `source-document` per source, `data-sources` (the numbered sources), `text-start`, `text-delta`s as the model produces them, `text-end` (with the [n] citations), `finish`, then `[DONE]`; a failure after the answer began is an `error` part. " +
      "With `agentic: true` (or the hosting's `chatMode: \"agentic\"`) the model instead calls `search` and `expand` tools for up to `maxToolRounds` rounds (default 3) before answering: streamed, each call is a `tool-input-available` part followed by `tool-output-available` or `tool-output-error`, rounds are separated by `finish-step`/`start-step`, and `data-sources` (id `sources`) is re-sent as searches number new sources; whole, the answer adds `toolCalls`. " +
      "A model that refuses the configuration is a 422, and so is an address where no model answers (connection refused, no such host): `llmConfig: no model reachable: ...`; a busy one (429, 5xx, timeouts) a 429 with `Retry-After`.",
    successHeaders: {
      "x-chat-model": { description: "The model that answered, as `<provider>:<model>`, e.g. `bedrock:us.amazon.nova-lite-v1:0`.", schema: { type: "string" } },
      "x-rerank": { description: "As for search: `reranked`, `unavailable` or `failed`, when the request asked for reranking.", schema: { type: "string", enum: ["reranked", "unavailable", "failed"] } },
    },
  },
  "POST /v1/mcp": {
    operationId: "mcp",
    summary: "Model Context Protocol server (Streamable HTTP, stateless)",
    tag: "MCP",
    success: { status: 200, raw: "application/json" },
    otherResponses: { "202": "A notification or response from the client, accepted (no body)." },
    description:
      "A JSON-RPC 2.0 message of the Model Context Protocol (`initialize`, `tools/list`, `tools/call` ...), answered as JSON (`Accept: application/json, text/event-stream`; notifications get 202). " +
      "Tools: `list_namespaces`, `search`, `expand`, `list_documents`, `get_document`, `ingest_text`, `ingest_url`; their inputs are the HTTP API's request bodies plus `namespace` (id or slug) and `tenantId`, results carry citations. " +
      "Authenticated by the API key like every route; no sessions. README \"MCP server\".",
  },
  "GET /v1/mcp": {
    operationId: "mcpEventStream",
    summary: "MCP server-sent events: not offered (stateless server)",
    tag: "MCP",
    success: { status: 405, raw: "application/json" },
    description: "Streamable HTTP's GET opens a stream for server-initiated messages; this server has none and answers 405, as the transport specifies.",
  },
  "POST /hosted/{slug}/mcp": {
    operationId: "mcpHostedPage",
    summary: "A hosted page's MCP server (no key), when the owner enables it",
    tag: "Hosted pages",
    success: { status: 200, raw: "application/json" },
    otherResponses: { "202": "A notification or response from the client, accepted (no body)." },
    description:
      "As `POST /v1/mcp`, with the tools `search` and `expand` over the page's namespace (records without a tenant), with the page's retrieval settings. 404 unless the hosting has `mcpEnabled: true`; 403 for a protected page without a valid session cookie; every request counts against the page's search limits (429 with `Retry-After`).",
  },
  "GET /hosted/{slug}/mcp": {
    operationId: "mcpHostedPageEventStream",
    summary: "A hosted page's MCP server-sent events: not offered (stateless server)",
    tag: "Hosted pages",
    success: { status: 405, raw: "application/json" },
  },
  "GET /openapi.json": {
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI document",
    tag: "Contract",
    success: { status: 200, raw: "application/json" },
  },
  "GET /docs": {
    operationId: "getApiReference",
    summary: "The API reference page, rendered from this document",
    tag: "Contract",
    success: { status: 200, raw: "text/html" },
  },
  "GET /hosted/{slug}": {
    operationId: "getHostedPage",
    summary: "A namespace's hosted page (no key)",
    tag: "Hosted pages",
    success: { status: 200, raw: "text/html" },
    description:
      "Rendered from the namespace's hosting configuration. A protected page shows a visitor without a valid session cookie only its title and the e-mail sign-in form. 404 when no hosting has this slug (deleted, moved, or its namespace is being deleted).",
  },
  "POST /hosted/{slug}/sign-in": {
    operationId: "requestHostedPageSignIn",
    summary: "Ask for a sign-in link to a protected hosted page (no key)",
    tag: "Hosted pages",
    success: { status: 200, data: "SignInRequested" },
    description:
      "E-mails a one-time link (15 minutes) when the address is in the hosting's `allowedEmails` or on one of its `allowedEmailDomains`; the answer is the same for any address. 429 past 5 requests a minute per visitor or 3 links per address in 10 minutes; 403 when the deployment has no sender.",
  },
  "GET /hosted/{slug}/session": {
    operationId: "openHostedPageSignInLink",
    summary: "The e-mailed sign-in link: a page whose button signs in (no key)",
    tag: "Hosted pages",
    success: { status: 200, raw: "text/html" },
    description: "Uses nothing up, so a mail scanner that fetches the link cannot spend it; the button posts the token to the same address.",
  },
  "POST /hosted/{slug}/session": {
    operationId: "completeHostedPageSignIn",
    summary: "Sign in with a link's token: sets the page's session cookie and redirects to the page (no key)",
    tag: "Hosted pages",
    success: { status: 303, raw: "text/html" },
    description:
      "A form post (`application/x-www-form-urlencoded`, field `token`). Uses the token up. The cookie is HttpOnly, SameSite=Lax, Secure over HTTPS, scoped to the page's path, valid 7 days. 400 for a used, expired or foreign link; 403 for a post from another origin.",
  },

  "POST /hosted/{slug}/search": {
    operationId: "searchHostedPage",
    summary: "The search tab of a hosted page (no key)",
    tag: "Hosted pages",
    success: { status: 200, data: "HostedSearchHit", list: true },
    description:
      "Hybrid search over the namespace's records without a tenant, with the hosting's `topK` and `rerankConfig`. Each hit carries its document, where in it the chunk starts (`location`), a `snippet` of at most about 300 characters around the best-matching passage and the query's words in the text (`highlights`, matched by the keyword analyser's stems), as UTF-16 offsets into `text`; `sourceFile` says whether the page serves the uploaded file (see `getHostedDocumentFile`). 403 when search is disabled, or the page is protected and the request carries no valid session cookie; 429 (with `Retry-After`) past 30 searches a minute per visitor or 600 per page.",
  },
  "GET /hosted/{slug}/documents/{documentId}/file": {
    operationId: "getHostedDocumentFile",
    summary: "A search hit's source file: a redirect to a presigned download lasting 5 minutes (no key)",
    tag: "Hosted pages",
    success: { status: 302, raw: "text/plain" },
    successHeaders: { location: { description: "The presigned GET of the uploaded file, saved under the document's name.", schema: { type: "string" } } },
    description:
      "Only for a document of the page's namespace without a tenant, not being deleted, uploaded as a file (MANAGED_FILE); any other id is 404. Admitted and counted as a search: 403 on a protected page without a valid session cookie, 429 (with `Retry-After`) past the search limits.",
  },
  "POST /hosted/{slug}/chat": {
    operationId: "chatHostedPage",
    summary: "The chat tab of a hosted page, streamed (no key)",
    tag: "Hosted pages",
    success: { status: 200, raw: "text/event-stream" },
    description:
      "Answers the conversation's last question from the namespace's records without a tenant, retrieved as the search tab does, with the hosting's `systemPrompt` and `llmConfig` (else the deployment's default model), as the AI SDK's UI message stream (see `chat`). 403 for a protected page without a valid session cookie; 422 naming `llmConfig` when no model is configured or none is reachable at its address; 429 (with `Retry-After`) past 10 questions a minute per visitor or 120 per page.",
  },
};
