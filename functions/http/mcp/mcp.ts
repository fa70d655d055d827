import { httpHandler } from "../../shared/http/handler.ts";
import * as route from "./mcp.route.ts";
import { serveMcp } from "../../shared/http/mcp-server.ts";
import { MCP_TOOLS } from "../../shared/workflows/mcp.ts";

/**
 * `/v1/mcp`: the Model Context Protocol over Streamable HTTP for an organization's key, behind the
 * authorizer like every other route. GET (a server-sent event stream for server-initiated messages)
 * has nothing to serve without sessions: 405.
 */
export const handler = httpHandler(route.mcp, async ({ auth, tenantId, event }) =>
  serveMcp(event, MCP_TOOLS, { organizationId: auth.organizationId, tenantId }, INSTRUCTIONS),
);

const INSTRUCTIONS =
  "Knowledge bases (namespaces) of documents. Call list_namespaces first; search a namespace (hybrid mode finds both meanings and exact words) and cite results by their citation; expand reads the text around a chunk. ingest_text and ingest_url add documents.";
