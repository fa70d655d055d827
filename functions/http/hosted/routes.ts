import type { RouteContract } from "../../shared/http/contract.ts";
import { sessionQuery, signInBody } from "../../shared/domain/hosted/access.ts";
import { hostedChatBody, hostedDocumentPath, hostedSearchBody, hostedSlugPath } from "../../shared/domain/hosted/page.ts";

/** A hosted page's routes answer without a key, by the page's slug. */
const page = { public: true, path: hostedSlugPath } as const;

export const getHostedPage = {
  operationId: "getHostedPage",
  method: "GET",
  path: "/hosted/{slug}",
  summary: "A namespace's hosted page (no key)",
  tag: "Hosted pages",
  request: page,
  description:
    "Rendered from the namespace's hosting configuration. A protected page shows a visitor without a valid session cookie only its title and the e-mail sign-in form. 404 when no hosting has this slug (deleted, moved, or its namespace is being deleted).",
  response: { status: 200, raw: "text/html" },
} as const satisfies RouteContract;

export const requestHostedPageSignIn = {
  operationId: "requestHostedPageSignIn",
  method: "POST",
  path: "/hosted/{slug}/sign-in",
  summary: "Ask for a sign-in link to a protected hosted page (no key)",
  tag: "Hosted pages",
  request: { public: true, path: hostedSlugPath, body: signInBody },
  description:
    "E-mails a one-time link (15 minutes) when the address is in the hosting's `allowedEmails` or on one of its `allowedEmailDomains`; the answer is the same for any address. 429 past 5 requests a minute per visitor or 3 links per address in 10 minutes; 403 when the deployment has no sender.",
  response: { status: 200, data: "SignInRequested" },
} as const satisfies RouteContract;

export const openHostedPageSignInLink = {
  operationId: "openHostedPageSignInLink",
  method: "GET",
  path: "/hosted/{slug}/session",
  summary: "The e-mailed sign-in link: a page whose button signs in (no key)",
  tag: "Hosted pages",
  request: { public: true, path: hostedSlugPath, query: sessionQuery },
  description: "Uses nothing up, so a mail scanner that fetches the link cannot spend it; the button posts the token to the same address.",
  response: { status: 200, raw: "text/html" },
} as const satisfies RouteContract;

export const completeHostedPageSignIn = {
  operationId: "completeHostedPageSignIn",
  method: "POST",
  path: "/hosted/{slug}/session",
  summary: "Sign in with a link's token: sets the page's session cookie and redirects to the page (no key)",
  tag: "Hosted pages",
  request: { public: true, path: hostedSlugPath, body: sessionQuery, bodyFormat: "form" },
  description:
    "A form post (`application/x-www-form-urlencoded`, field `token`). Uses the token up. The cookie is HttpOnly, SameSite=Lax, Secure over HTTPS, scoped to the page's path, valid 7 days. 400 for a used, expired or foreign link; 403 for a post from another origin.",
  response: { status: 303, raw: "text/html" },
} as const satisfies RouteContract;

export const searchHostedPage = {
  operationId: "searchHostedPage",
  method: "POST",
  path: "/hosted/{slug}/search",
  summary: "The search tab of a hosted page (no key)",
  tag: "Hosted pages",
  request: { public: true, path: hostedSlugPath, body: hostedSearchBody },
  description:
    "Hybrid search over the namespace's records without a tenant, with the hosting's `topK` and `rerankConfig`. Each hit carries its document, where in it the chunk starts (`location`), a `snippet` of at most about 300 characters around the best-matching passage and the query's words in the text (`highlights`, matched by the keyword analyser's stems), as UTF-16 offsets into `text`; `sourceFile` says whether the page serves the uploaded file (see `getHostedDocumentFile`). 403 when search is disabled, or the page is protected and the request carries no valid session cookie; 429 (with `Retry-After`) past 30 searches a minute per visitor or 600 per page.",
  response: { status: 200, data: "HostedSearchHit", list: true },
} as const satisfies RouteContract;

export const getHostedDocumentFile = {
  operationId: "getHostedDocumentFile",
  method: "GET",
  path: "/hosted/{slug}/documents/{documentId}/file",
  summary: "A search hit's source file: a redirect to a presigned download lasting 5 minutes (no key)",
  tag: "Hosted pages",
  request: { public: true, path: hostedDocumentPath },
  successHeaders: { location: { description: "The presigned GET of the uploaded file, saved under the document's name.", schema: { type: "string" } } },
  description:
    "Only for a document of the page's namespace without a tenant, not being deleted, uploaded as a file (MANAGED_FILE); any other id is 404. Admitted and counted as a search: 403 on a protected page without a valid session cookie, 429 (with `Retry-After`) past the search limits.",
  response: { status: 302, raw: "text/plain" },
} as const satisfies RouteContract;

export const mcpHostedPage = {
  operationId: "mcpHostedPage",
  method: "POST",
  path: "/hosted/{slug}/mcp",
  summary: "A hosted page's MCP server (no key), when the owner enables it",
  tag: "Hosted pages",
  request: page,
  otherResponses: { "202": "A notification or response from the client, accepted (no body)." },
  description:
    "As `POST /v1/mcp`, with the tools `search` and `expand` over the page's namespace (records without a tenant), with the page's retrieval settings. 404 unless the hosting has `mcpEnabled: true`; 403 for a protected page without a valid session cookie; every request counts against the page's search limits (429 with `Retry-After`).",
  response: { status: 200, raw: "application/json" },
} as const satisfies RouteContract;

export const mcpHostedPageEventStream = {
  operationId: "mcpHostedPageEventStream",
  method: "GET",
  path: "/hosted/{slug}/mcp",
  summary: "A hosted page's MCP server-sent events: not offered (stateless server)",
  tag: "Hosted pages",
  request: page,
  response: { status: 405, raw: "application/json" },
} as const satisfies RouteContract;

export const chatHostedPage = {
  operationId: "chatHostedPage",
  method: "POST",
  path: "/hosted/{slug}/chat",
  summary: "The chat tab of a hosted page, streamed (no key)",
  tag: "Hosted pages",
  request: { public: true, path: hostedSlugPath, body: hostedChatBody, stream: true },
  description:
    "Answers the conversation's last question from the namespace's records without a tenant, retrieved as the search tab does, with the hosting's `systemPrompt` and `llmConfig` (else the deployment's default model), as the AI SDK's UI message stream (see `chat`). 403 for a protected page without a valid session cookie; 422 naming `llmConfig` when no model is configured or none is reachable at its address; 429 (with `Retry-After`) past 10 questions a minute per visitor or 120 per page.",
  response: { status: 200, raw: "text/event-stream" },
} as const satisfies RouteContract;
