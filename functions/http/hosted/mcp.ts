import { notFound } from "../../shared/domain/errors.ts";
import { httpHandler } from "../../shared/http/handler.ts";
import * as route from "./mcp.route.ts";
import { admitVisitTo } from "../../shared/http/hosted/request.ts";
import { serveMcp } from "../../shared/http/mcp-server.ts";
import { PAGE_MCP_TOOLS } from "../../shared/workflows/hosted/mcp.ts";
import { publishedPage } from "../../shared/workflows/hosted/page.ts";

/**
 * A hosted page's MCP server, when its owner enables it (`mcpEnabled`): no key, as public as the
 * page (a protected page admits only a signed-in visitor's session cookie), and every request
 * counts against the page's search limits.
 */
export const handler = httpHandler(route.mcpHostedPage, async ({ path, event }) => {
  const published = await publishedPage(path.slug);
  // Before admission, so a page without an MCP server answers 404 and counts nothing.
  if (!published.hosting.mcpEnabled) throw notFound(`No MCP server on the page ${path.slug}.`);
  const page = await admitVisitTo(published, event, "search");
  return serveMcp(event, PAGE_MCP_TOOLS, page, `Documents published on the page "${page.hosting.title}". Search them and cite results by their citation; expand reads around a chunk.`);
});
