import { loadDocumentForRequest } from "../db/documents.ts";
import { getHosting } from "../db/hosting.ts";
import { listNamespaces, loadNamespaceForOrganization } from "../db/namespaces.ts";
import { createIngestJobBody } from "../domain/ingest-job.ts";
import { jobToWire } from "../domain/wire/ingest-job.ts";
import { documentListQuery } from "../domain/list-query.ts";
import { idParam, TENANT_PATTERN } from "../domain/params.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import { namespaceToWire } from "../domain/wire/namespace.ts";
import { expansionInput, searchBody } from "../domain/search.ts";
import * as z from "../platform/zod.ts";
import { expandHits } from "./expansion.ts";
import { createIngestJob } from "./ingestion/create-job.ts";
import { listDocuments } from "./ingestion/lookups.ts";
import { documentsToWire, readDocumentToWire } from "./records-to-wire.ts";
import { chunkIdInput, chunkOfInput, citationOf, type McpTool, parse, readAroundChunk } from "./mcp-common.ts";
import { rerankResults } from "./rerank.ts";
import { search } from "./search.ts";

/**
 * The MCP server's tools: what an agent can do with an organization's knowledge through one API
 * key. Every input is checked by the schema the HTTP API checks the same request with (the search
 * body, the expansion, the documents query, the ingest-job body), plus where it goes: `namespace`
 * (an id or a slug) and `tenantId` (what `x-tenant-id` is to the HTTP API). Results carry
 * citations: the document, the chunk, its page and the hosting's citation when it has one.
 *
 * Writes: an API key of an organization may write through the HTTP API (ingest, delete), so it may
 * through MCP too; keys have no read-only kind. A deployment that wants agents read-only hands them
 * a key of an organization whose namespaces it can afford to have written to, or leaves out the
 * write tools with `readOnly` (README "MCP server").
 */
export interface McpCaller {
  organizationId: string;
  /** The request's `x-tenant-id`, used when a tool call names no tenant. */
  tenantId: string | null;
}

/** Where a tool acts: the namespace (id or slug) and the tenant, as the HTTP API takes them in the path and header. */
const target = z.object({
  namespace: z.string().check(z.minLength(1), z.maxLength(128)),
  tenantId: z.optional(z.string().check(z.regex(TENANT_PATTERN, "must be 1 to 64 letters or digits"))),
});

const TARGET_PROPERTIES = {
  namespace: { type: "string", description: "The namespace's id (ns_...) or slug; list_namespaces lists them." },
  tenantId: { type: "string", description: "The tenant whose records to use (as x-tenant-id); absent, the records without a tenant." },
};

/** Splits a tool input into its target and the rest, which the HTTP API's schema for the same request checks. */
function split(input: Record<string, unknown>): { where: z.output<typeof target>; rest: Record<string, unknown> } {
  const { namespace, tenantId, ...rest } = input;
  return { where: parse(target, { namespace, tenantId }), rest };
}

async function namespaceOf(caller: McpCaller, where: z.output<typeof target>, access: "active" | "any"): Promise<{ namespace: NamespaceRecord; tenantId: string | null }> {
  return { namespace: await loadNamespaceForOrganization(caller.organizationId, where.namespace, access), tenantId: where.tenantId ?? caller.tenantId };
}

/** A request schema as JSON Schema for the tool's input, with the target's properties added. */
function inputSchemaOf(schema: z.ZodMiniType | null): Record<string, unknown> {
  const body = schema ? (z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>) : {};
  const { $schema: _dialect, ...rest } = body;
  return {
    ...rest,
    type: "object",
    properties: { ...TARGET_PROPERTIES, ...((rest.properties as Record<string, unknown> | undefined) ?? {}) },
    // What zod requires, and the target: JSON Schema wants each name once, so nothing is added twice.
    required: ["namespace", ...((rest.required as string[] | undefined) ?? [])],
  };
}

/** The document get_document reads, checked as the HTTP API checks it in the path ("must be a document id (doc_...)"). */
const documentIdInput = z.object({ documentId: idParam("document") });

const ingestTextInput = z.object({ text: z.string(), fileName: z.optional(z.string()), config: z.optional(z.unknown()) });
const ingestUrlInput = z.object({ url: z.string(), fileName: z.optional(z.string()), config: z.optional(z.unknown()) });

export const MCP_TOOLS: McpTool<McpCaller>[] = [
  {
    name: "list_namespaces",
    title: "List namespaces",
    description: "Lists the namespaces (knowledge bases) this API key can use, with their ids and slugs.",
    inputSchema: { type: "object", properties: {} },
    writes: false,
    run: async (_input, caller) => ({ namespaces: (await listNamespaces(caller.organizationId)).map(namespaceToWire) }),
  },
  {
    name: "search",
    title: "Search a namespace",
    description:
      "Searches a namespace's documents (semantic, keyword or hybrid) and returns the best chunks, each with a citation (document, chunk, page). `expand` returns the chunks around each hit as a passage.",
    inputSchema: inputSchemaOf(searchBody),
    writes: false,
    run: async (input, caller) => {
      const { where, rest } = split(input);
      const body = parse(searchBody, rest);
      const { namespace, tenantId } = await namespaceOf(caller, where, "active");
      const [hosting, found] = await Promise.all([getHosting(namespace.id), search(namespace, tenantId, { ...body, includeMetadata: true })]);
      const { results } = await rerankResults(namespace, body, found);
      const expanded = body.expand ? await expandHits(namespace, tenantId, results, body.expand) : results;
      return {
        results: expanded.map((result) => ({
          ...result,
          ...(body.includeMetadata ? {} : { metadata: undefined }),
          citation: citationOf(result.id, result.metadata, hosting?.citationMetadataPath ?? null),
        })),
      };
    },
  },
  {
    name: "expand",
    title: "Read around a chunk",
    description: "Returns a chunk (by the id search gave) joined with the chunks before and after it in its document, the chunk's own range marked.",
    inputSchema: inputSchemaOf(z.extend(chunkIdInput, expansionInput.shape)),
    writes: false,
    run: async (input, caller) => {
      const { where, rest } = split(input);
      const { id, expansion } = chunkOfInput(rest);
      const { namespace, tenantId } = await namespaceOf(caller, where, "active");
      return readAroundChunk(namespace, tenantId, id, expansion, "in this namespace and tenant");
    },
  },
  {
    name: "list_documents",
    title: "List documents",
    description: "Lists a namespace's documents, newest first, 30 a page (perPage up to 100); pass the returned cursor for the next page.",
    inputSchema: inputSchemaOf(documentListQuery),
    writes: false,
    run: async (input, caller) => {
      const { where, rest } = split(input);
      // The HTTP query schema reads strings, as a query string carries them.
      const query = parse(documentListQuery, Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, Array.isArray(value) ? value.join(",") : value === undefined ? value : String(value)])));
      const { namespace, tenantId } = await namespaceOf(caller, where, "any");
      const page = await listDocuments(namespace.id, tenantId, query);
      return { documents: await documentsToWire(page.records), pagination: page.pagination };
    },
  },
  {
    name: "get_document",
    title: "Get a document",
    description: "A document's record: name, source, status, chunk and page counts.",
    inputSchema: inputSchemaOf(documentIdInput),
    writes: false,
    run: async (input, caller) => {
      const { where, rest } = split(input);
      const { documentId } = parse(documentIdInput, rest);
      const { namespace, tenantId } = await namespaceOf(caller, where, "any");
      return { document: await readDocumentToWire(await loadDocumentForRequest(namespace.id, tenantId, documentId)) };
    },
  },
  {
    name: "ingest_text",
    title: "Add text",
    description: "Adds a text (Markdown or plain) to a namespace as a new document; returns the ingest job, which completes shortly after.",
    inputSchema: inputSchemaOf(ingestTextInput),
    writes: true,
    run: async (input, caller) => {
      const { where, rest } = split(input);
      const { text, fileName, config } = parse(ingestTextInput, rest);
      return ingest(caller, where, { payload: { type: "TEXT", text, ...(fileName !== undefined ? { fileName } : {}) }, ...(config !== undefined ? { config } : {}) });
    },
  },
  {
    name: "ingest_url",
    title: "Add a file by URL",
    description: "Fetches a public http(s) URL (a web page, PDF, Office document ...) into a namespace as a new document; returns the ingest job.",
    inputSchema: inputSchemaOf(ingestUrlInput),
    writes: true,
    openWorld: true,
    run: async (input, caller) => {
      const { where, rest } = split(input);
      const { url, fileName, config } = parse(ingestUrlInput, rest);
      return ingest(caller, where, { payload: { type: "FILE", fileUrl: url, ...(fileName !== undefined ? { fileName } : {}) }, ...(config !== undefined ? { config } : {}) });
    },
  },
];

async function ingest(caller: McpCaller, where: z.output<typeof target>, body: Record<string, unknown>) {
  const request = parse(createIngestJobBody, body);
  const { namespace, tenantId } = await namespaceOf(caller, where, "active");
  const { job, payload } = await createIngestJob(namespace, tenantId, request);
  return { job: jobToWire(job, payload) };
}
