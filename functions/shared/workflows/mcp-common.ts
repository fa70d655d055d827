import { parseChunkId } from "../domain/chunks.ts";
import type { MetadataValue } from "../domain/metadata-filter.ts";
import * as z from "../platform/zod.ts";
import { citationAt } from "../domain/hosted/page.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import { expansionInput } from "../domain/search.ts";
import { expandHits } from "./expansion.ts";

// What both MCP servers' tools share (the organization's at /v1/mcp, a hosted page's).

/** A tool and how it runs, in a context: the caller of `/v1/mcp` (workflows/mcp.ts), or a hosted page. */
export interface McpTool<C> {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  writes: boolean;
  /** The tool reaches beyond the service (ingest_url fetches any public URL): MCP's openWorldHint. */
  openWorld?: boolean;
  run(input: Record<string, unknown>, context: C): Promise<unknown>;
}

/** Input errors read like the HTTP API's 422: `<field>: <reason>`. */
export class ToolInputError extends Error {}

export function parse<S extends z.ZodMiniType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ToolInputError(z.formatIssue(result.error.issues[0]));
  return result.data;
}

/** How a result names where it came from. */
export function citationOf(id: string, metadata: Record<string, MetadataValue> | undefined, citationMetadataPath: string | null) {
  // Ids here are search's (chunkId) or get_chunk's, checked against chunkIdInput: always well-formed.
  const parsed = parseChunkId(id);
  const page = metadata?.page_number ?? metadata?.slide ?? metadata?.sheet;
  const hosted = citationAt(metadata, citationMetadataPath);
  return {
    documentId: parsed?.documentId,
    chunk: parsed?.sequence ?? Number.NaN,
    documentName: typeof metadata?.filename === "string" ? metadata.filename : null,
    ...(page !== undefined ? { page } : {}),
    ...(hosted !== null ? { source: hosted } : {}),
  };
}

export const chunkIdInput = z.object({
  chunkId: z.string().check(z.regex(/^doc_[A-Za-z0-9_-]+#\d{1,7}$/, "must be a chunk id as search returns it (<documentId>#<n>)")),
});

/** The expand tool's chunk id, checked before anything is read, and the rest of its input (the expansion). */
export function chunkOfInput(input: Record<string, unknown>): { id: string; expansion: Record<string, unknown> } {
  const { chunkId, ...expansion } = input;
  return { id: parse(chunkIdInput, { chunkId }).chunkId, expansion };
}

/**
 * The expand tool of both servers: the chunk joined with its neighbours, the expansion checked by the
 * HTTP API's schema; a chunk the scope does not hold is a tool error naming `scope`.
 */
export async function readAroundChunk(namespace: NamespaceRecord, tenantId: string | null, id: string, expansion: Record<string, unknown>, scope: string) {
  const [hit] = await expandHits(namespace, tenantId, [{ id, text: "" }], parse(expansionInput, expansion), { readHits: true });
  if (!hit || hit.passage.text === "") throw new ToolInputError(`chunkId: no chunk ${id} ${scope}`);
  return { id, passage: hit.passage, citation: citationOf(id, undefined, null) };
}
