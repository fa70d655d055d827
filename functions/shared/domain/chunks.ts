import { type MetadataValue } from "./metadata-filter.ts";

/** The JSON behind createChunksDownloadUrl's download URL; the agentset chunks.json format. */
export interface ChunksFile {
  metadata: Record<string, MetadataValue>;
  total_chunks: number;
  total_characters: number;
  chunks: { id: string; text: string; metadata: { sequence_number: number; page_number?: number; sheet?: string; slide?: number; repeated_header?: number } }[];
}

/** Chunk ids are stable across re-ingestions of the same document: `<documentId>#<sequence>`. */
export function chunkId(documentId: string, sequence: number): string {
  return `${documentId}#${sequence}`;
}

/** A chunk id's document and sequence; null for anything chunkId does not build (no `#`, more than one, or a sequence not all digits). */
export function parseChunkId(id: string): { documentId: string; sequence: number } | null {
  const match = /^([^#]+)#(\d+)$/.exec(id);
  return match ? { documentId: match[1]!, sequence: Number(match[2]) } : null;
}

/** Vector keys carry the run, so two runs' vectors never overwrite each other: `<documentId>#<runId>#<sequence>`. */
export function vectorKey(documentId: string, runId: string, sequence: number): string {
  return `${documentId}#${runId}#${sequence}`;
}

export function parseVectorKey(key: string): { documentId: string; runId: string; sequence: number } | null {
  const [documentId, runId, sequence, extra] = key.split("#");
  if (!documentId || !runId || sequence === undefined || extra !== undefined || !/^\d+$/.test(sequence)) return null;
  return { documentId, runId, sequence: Number(sequence) };
}

export function vectorKeysOf(documentId: string, runId: string, count: number): string[] {
  return Array.from({ length: count }, (_, sequence) => vectorKey(documentId, runId, sequence));
}
