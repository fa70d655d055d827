import type { RouteContract } from "../../shared/http/contract.ts";

/** POST and GET share one handler (GET answers 405). */
const request = { tenant: true } as const;

export const mcp = {
  operationId: "mcp",
  method: "POST",
  path: "/v1/mcp",
  summary: "Model Context Protocol server (Streamable HTTP, stateless)",
  tag: "MCP",
  otherResponses: { "202": "A notification or response from the client, accepted (no body)." },
  description:
    "A JSON-RPC 2.0 message of the Model Context Protocol (`initialize`, `tools/list`, `tools/call` ...), answered as JSON (`Accept: application/json, text/event-stream`; notifications get 202). " +
    "Tools: `list_namespaces`, `search`, `expand`, `list_documents`, `get_document`, `ingest_text`, `ingest_url`; their inputs are the HTTP API's request bodies plus `namespace` (id or slug) and `tenantId`, results carry citations. " +
    "Authenticated by the API key like every route; no sessions. README \"MCP server\".",
  request,
  response: { status: 200, raw: "application/json" },
} as const satisfies RouteContract;

export const mcpEventStream = {
  operationId: "mcpEventStream",
  method: "GET",
  path: "/v1/mcp",
  summary: "MCP server-sent events: not offered (stateless server)",
  tag: "MCP",
  description: "Streamable HTTP's GET opens a stream for server-initiated messages; this server has none and answers 405, as the transport specifies.",
  request,
  response: { status: 405, raw: "application/json" },
} as const satisfies RouteContract;
