import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestAndWait, ingestForTenant, newNamespace, type TestNamespace, waitForJob } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack();

let ns: TestNamespace;
let client: Client;
const clients: Client[] = [];

/** The SDK's own client over Streamable HTTP, authenticated as the HTTP API is. */
async function connect(key: string | null, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${api.stack().baseUrl}/v1/mcp`), {
    requestInit: { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } },
  });
  const connected = new Client({ name: "mcp-test", version: "1.0.0" });
  await connected.connect(transport);
  clients.push(connected);
  return connected;
}

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: any };
const call = async (name: string, args: Record<string, unknown>, on = client) => (await on.callTool({ name, arguments: args })) as ToolResult;

beforeAll(async () => {
  ns = await newNamespace(api);
  const doc = await ingestAndWait(
    ns,
    { type: "TEXT", text: "Opening hours.\n\nThe Leeds warehouse ships orders placed before 2 pm on the same day.\n\nWeekend orders ship on Monday.", fileName: "dispatch.md" },
    { chunkSize: 40 },
  );
  expect(doc.document.status).toBe("COMPLETED");
  await ingestForTenant(ns, "acme", { type: "TEXT", text: "Tenant acme ships from Bristol only.", fileName: "acme.md" });
  client = await connect(ns.key);
});

afterAll(async () => {
  await Promise.all(clients.map((connected) => connected.close()));
});

describe("MCP server", () => {
  it("initializes over Streamable HTTP and lists the tools with input schemas", async () => {
    expect(client.getServerVersion()?.name).toBe("knowledge-ingestion-service");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["list_namespaces", "search", "expand", "list_documents", "get_document", "ingest_text", "ingest_url"]);
    const search = tools.find((tool) => tool.name === "search")!;
    expect(search.inputSchema.required).toEqual(["namespace", "query"]);
    // JSON Schema's `required` holds each name once.
    for (const tool of tools) expect(new Set(tool.inputSchema.required ?? []).size, tool.name).toBe((tool.inputSchema.required ?? []).length);
    expect(tools.find((tool) => tool.name === "ingest_url")!.inputSchema.required).toEqual(["namespace", "url"]);
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["namespace", "tenantId", "query", "topK", "mode", "filter", "expand"]));
    expect(tools.find((tool) => tool.name === "ingest_text")!.annotations?.readOnlyHint).toBe(false);
    expect(search.annotations?.readOnlyHint).toBe(true);
    // Only ingest_url reaches beyond the service (it fetches any public URL).
    expect(tools.filter((tool) => tool.annotations?.openWorldHint).map((tool) => tool.name)).toEqual(["ingest_url"]);
  });

  it("lists the key's namespaces and searches one by slug, results carrying citations", async () => {
    const listed = await call("list_namespaces", {});
    const namespaces = listed.structuredContent.namespaces as { id: string; slug: string }[];
    expect(namespaces.map((namespace) => namespace.id)).toEqual([ns.namespaceId]);
    const found = await call("search", { namespace: namespaces[0]!.slug, query: "the Leeds warehouse", mode: "hybrid", topK: 2 });
    expect(found.isError).toBeFalsy();
    const [best] = found.structuredContent.results;
    expect(best.text).toContain("Leeds warehouse");
    expect(best.citation).toMatchObject({ documentName: "dispatch.md", documentId: best.id.split("#")[0], chunk: Number(best.id.split("#")[1]) });
    // The text content carries the same JSON, for clients that read only text.
    expect(JSON.parse(found.content[0]!.text)).toEqual(found.structuredContent);
  });

  it("expands a chunk to its neighbours, and searches with expansion", async () => {
    const found = await call("search", { namespace: ns.namespaceId, query: "Leeds warehouse same day", mode: "keyword", topK: 1, expand: { before: 1, after: 1 } });
    const [hit] = found.structuredContent.results;
    expect(hit.passage.text).toContain("Opening hours.");
    const expanded = await call("expand", { namespace: ns.namespaceId, chunkId: hit.id, before: 0, after: 5 });
    expect(expanded.isError).toBeFalsy();
    expect(expanded.structuredContent.passage.text).toContain("Weekend orders ship on Monday.");
    const { passage } = expanded.structuredContent;
    expect(passage.text.slice(passage.hit.start, passage.hit.end)).toBe(hit.text);
  });

  it("validates tool input with the HTTP API's schemas, answering a tool error instead of failing", async () => {
    const bad = await call("search", { namespace: ns.namespaceId, query: "x", topK: 500 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/^topK: /);
    const unknown = await call("search", { namespace: "ns_doesnotexist00000000", query: "x" });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toContain("not found");
    const noChunk = await call("expand", { namespace: ns.namespaceId, chunkId: "doc_nothere#3" });
    expect(noChunk.isError).toBe(true);
    expect(noChunk.content[0]!.text).toBe("chunkId: no chunk doc_nothere#3 in this namespace and tenant");
  });

  it("keeps tenants and organizations apart", async () => {
    const tenant = await call("search", { namespace: ns.namespaceId, tenantId: "acme", query: "ships from", mode: "keyword" });
    expect(JSON.stringify(tenant.structuredContent)).toContain("Bristol");
    expect(JSON.stringify(tenant.structuredContent)).not.toContain("Leeds");
    const untenanted = await call("search", { namespace: ns.namespaceId, query: "ships from Bristol", mode: "keyword" });
    expect(JSON.stringify(untenanted.structuredContent)).not.toContain("Bristol");

    const other = await api.newOrganization();
    const stranger = await connect(other.key);
    expect((await call("list_namespaces", {}, stranger)).structuredContent.namespaces).toEqual([]);
    const refused = await call("search", { namespace: ns.namespaceId, query: "Leeds" }, stranger);
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain("another organization");
  });

  it("ingests text and lists and reads the document it made", async () => {
    const ingested = await call("ingest_text", { namespace: ns.namespaceId, text: "The Harrogate depot opens at 6 am.", fileName: "depot.md" });
    expect(ingested.isError).toBeFalsy();
    const job = await waitForJob(ns, ingested.structuredContent.job.id);
    expect(job.status).toBe("COMPLETED");
    const listed = await call("list_documents", { namespace: ns.namespaceId, ingestJobId: job.id, perPage: 5 });
    const [document] = listed.structuredContent.documents;
    expect(document.name ?? document.source?.fileName ?? "depot.md").toBeTruthy();
    const got = await call("get_document", { namespace: ns.namespaceId, documentId: document.id });
    expect(got.structuredContent.document).toMatchObject({ id: document.id, status: "COMPLETED" });
    const url = await call("ingest_url", { namespace: ns.namespaceId, url: "not a url" });
    expect(url.isError).toBe(true);
    expect(url.content[0]!.text).toMatch(/^payload\.fileUrl: /);
  });

  it("serves a hosted page's public namespace to agents without a key, once the owner enables it", async () => {
    await ns.call("POST", "/hosting");
    const { slug } = (await ns.call("PATCH", "/hosting", { body: { protected: false } })).body.data;
    const pageUrl = new URL(`${api.stack().baseUrl}/hosted/${slug}/mcp`);
    const pageClient = () => new Client({ name: "page-test", version: "1.0.0" });
    // Off by default: the page has no MCP server.
    await expect(pageClient().connect(new StreamableHTTPClientTransport(pageUrl))).rejects.toThrow(/404|not found|No MCP/i);

    const enabled = await ns.call("PATCH", "/hosting", { body: { mcpEnabled: true } });
    expect(enabled.body.data.mcpEnabled).toBe(true);
    const visitor = pageClient();
    await visitor.connect(new StreamableHTTPClientTransport(pageUrl));
    clients.push(visitor);
    expect((await visitor.listTools()).tools.map((tool) => tool.name)).toEqual(["search", "expand"]);
    const found = (await visitor.callTool({ name: "search", arguments: { query: "Leeds same day", topK: 50, expand: { before: 1, after: 0 } } })) as ToolResult;
    expect(found.isError).toBeFalsy();
    const results = found.structuredContent.results as { text: string; passage: { text: string }; citation: { documentName: string } }[];
    expect(results[0]!.citation.documentName).toBe("dispatch.md");
    for (const result of results) expect(result.passage.text.endsWith(result.text)).toBe(true);
    expect(results.some((result) => result.passage.text.length > result.text.length)).toBe(true);
    // The page's own topK bounds a request's; the tenant's records are not the page's.
    expect(results.length).toBeLessThanOrEqual(10);
    expect(JSON.stringify(results)).not.toContain("Bristol");
    // The page's expand reads around a hit as the organization's does, and names the page when the chunk is not there.
    const hitId = (found.structuredContent.results as { id: string }[])[0]!.id;
    const around = (await visitor.callTool({ name: "expand", arguments: { chunkId: hitId, before: 0, after: 1 } })) as ToolResult;
    expect(around.isError).toBeFalsy();
    expect(around.structuredContent).toMatchObject({ id: hitId, citation: { chunk: Number(hitId.split("#")[1]) } });
    expect(around.structuredContent.passage.text).toContain(results[0]!.text);
    const missing = (await visitor.callTool({ name: "expand", arguments: { chunkId: "doc_nothere#3" } })) as ToolResult;
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toBe("chunkId: no chunk doc_nothere#3 on this page");

    await ns.call("PATCH", "/hosting", { body: { protected: true } });
    await expect(visitor.callTool({ name: "search", arguments: { query: "Leeds" } })).rejects.toThrow(/403|protected/i);
  });

  it("refuses a request without a valid key before any tool runs", async () => {
    await expect(connect(null)).rejects.toThrow(/401|Unauthorized|invalid/i);
    const response = await fetch(`${api.stack().baseUrl}/v1/mcp`, { headers: { authorization: `Bearer ${ns.key}`, accept: "text/event-stream" } });
    expect(response.status).toBe(405);
  });
});
