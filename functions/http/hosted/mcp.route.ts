import type { RouteContract } from "../../shared/http/contract.ts";
import { hostedSlugPath } from "../../shared/domain/hosted/page.ts";

/** POST and GET share one handler (GET answers 405). */
const page = { public: true, path: hostedSlugPath } as const;

export const mcpHostedPage = {
  operationId: "mcpHostedPage",
  method: "POST",
  path: "/hosted/{slug}/mcp",
  summary: "A hosted page's MCP server (no key), when the owner enables it",
  tag: "Hosted pages",
  otherResponses: { "202": "A notification or response from the client, accepted (no body)." },
  description:
    "As `POST /v1/mcp`, with the tools `search` and `expand` over the page's namespace (records without a tenant), with the page's retrieval settings. 404 unless the hosting has `mcpEnabled: true`; 403 for a protected page without a valid session cookie; every request counts against the page's search limits (429 with `Retry-After`).",
  request: page,
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
