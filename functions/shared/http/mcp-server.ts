import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { isDomainError } from "../domain/errors.ts";
import { logger } from "../platform/logger.ts";
import { type McpTool, ToolInputError } from "../workflows/mcp-common.ts";
import type { RawReply } from "./contract.ts";

/**
 * One MCP exchange over Streamable HTTP, stateless: a fresh server and transport per request, JSON
 * responses, no sessions, so it runs on Lambda behind API Gateway. Serves `/v1/mcp` (an
 * organization's key) and a hosted page's `/hosted/{slug}/mcp` (its public namespace), each with
 * its tools and the context they run in.
 */
export async function serveMcp<C>(event: APIGatewayProxyEvent, tools: McpTool<C>[], context: C, instructions: string): Promise<RawReply> {
  if (event.httpMethod !== "POST") return { status: 405, data: null, raw: JSON.stringify(METHOD_NOT_ALLOWED), headers: { allow: "POST" } };
  const server = new Server({ name: "knowledge-ingestion-service", version: "1.0.0" }, { capabilities: { tools: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object" },
      annotations: { readOnlyHint: !tool.writes, destructiveHint: false, openWorldHint: tool.openWorld === true },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((known) => known.name === request.params.name);
    if (!tool) return failed(`Unknown tool ${request.params.name}; tools/list names them.`);
    try {
      const result = await tool.run(request.params.arguments ?? {}, context);
      return { content: [{ type: "text" as const, text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
    } catch (error) {
      // What the HTTP API would answer with an error envelope, the model reads as the tool's error.
      if (error instanceof ToolInputError || isDomainError(error)) return failed(error.message);
      logger.error("an MCP tool failed", { tool: tool.name, error: String(error) });
      return failed("The tool failed unexpectedly; try again.");
    }
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(requestOf(event));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { status: response.status, data: null, raw: await response.text(), headers };
  } finally {
    await server.close();
  }
}

function failed(message: string) {
  return { isError: true, content: [{ type: "text" as const, text: message }] };
}

function requestOf(event: APIGatewayProxyEvent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const body = event.body === null || event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, "base64") : event.body;
  return new Request(`https://${headers.get("host") ?? "localhost"}${event.path}`, { method: event.httpMethod, headers, ...(body !== undefined ? { body } : {}) });
}

/** The JSON-RPC error the SDK's own transport answers a GET with when it has no stream to offer. */
const METHOD_NOT_ALLOWED = { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this server is stateless and sends no server-initiated messages." }, id: null };
