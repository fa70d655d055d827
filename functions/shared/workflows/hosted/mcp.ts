import { forbidden } from "../../domain/errors.ts";
import { searchBody } from "../../domain/search.ts";
import * as z from "../../platform/zod.ts";
import { expandHits } from "../expansion.ts";
import type { PublishedPage } from "./page.ts";
import { pageRetrieval } from "./search.ts";
import { chunkOfInput, citationOf, type McpTool, parse, readAroundChunk } from "../mcp-common.ts";
import { rerankResults } from "../rerank.ts";
import { search } from "../search.ts";

/**
 * A hosted page's MCP server (`/hosted/{slug}/mcp`, when the owner sets `mcpEnabled`): what the
 * page's search tab offers, to agents. Read-only, over the records without a tenant, with the
 * page's retrieval (hybrid, its topK and reranking); a request may ask for fewer results, another
 * mode, a filter or neighbours. No key: it is as public as the page.
 */
const searchInput = z.object({
  query: z.string(),
  mode: z.optional(z.enum(["semantic", "keyword", "hybrid"])),
  topK: z.optional(z.number()),
  filter: z.optional(z.unknown()),
  expand: z.optional(z.unknown()),
});

export const PAGE_MCP_TOOLS: McpTool<PublishedPage>[] = [
  {
    name: "search",
    title: "Search this page's documents",
    description: "Searches the documents published on this page and returns the best chunks, each with a citation. `expand` adds the chunks around each hit.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string" },
        mode: { type: "string", enum: ["semantic", "keyword", "hybrid"], description: "hybrid by default" },
        topK: { type: "integer", minimum: 1, description: "at most the page's own number of results" },
        filter: { type: "object", description: "metadata filter, as the search API takes it" },
        expand: { type: "object", properties: { before: { type: "integer", minimum: 0, maximum: 5 }, after: { type: "integer", minimum: 0, maximum: 5 }, wholeDocument: { type: "boolean" } } },
      },
      required: ["query"],
    },
    writes: false,
    run: async (input, page) => {
      const { hosting, namespace } = page;
      if (!hosting.searchEnabled) throw forbidden("Search is not enabled on this page.");
      const given = parse(searchInput, input);
      const defaults = pageRetrieval(hosting, given.query);
      // The search API's own schema checks it; the page's topK bounds it.
      const body = parse(searchBody, { ...given, mode: given.mode ?? defaults.mode, topK: Math.min(given.topK ?? defaults.topK, defaults.topK) });
      const request = { ...defaults, ...body, rerankLimit: Math.min(defaults.rerankLimit ?? body.topK, body.topK), includeMetadata: true };
      const { results } = await rerankResults(namespace, request, await search(namespace, null, request));
      const shown = body.expand ? await expandHits(namespace, null, results, body.expand) : results;
      return { results: shown.map((result) => ({ ...result, citation: citationOf(result.id, result.metadata, hosting.citationMetadataPath) })) };
    },
  },
  {
    name: "expand",
    title: "Read around a chunk",
    description: "Returns a chunk (by the id search gave) joined with the chunks before and after it in its document.",
    inputSchema: {
      type: "object",
      properties: {
        chunkId: { type: "string" },
        before: { type: "integer", minimum: 0, maximum: 5 },
        after: { type: "integer", minimum: 0, maximum: 5 },
        wholeDocument: { type: "boolean" },
      },
      required: ["chunkId"],
    },
    writes: false,
    run: async (input, page) => {
      if (!page.hosting.searchEnabled) throw forbidden("Search is not enabled on this page.");
      const { id, expansion } = chunkOfInput(input);
      return readAroundChunk(page.namespace, null, id, expansion, "on this page");
    },
  },
];
