import { createHash } from "node:crypto";
import { type EmbeddingSpace, findEmbeddingPointers, recordEmbeddingPointers } from "../../db/embedding-pointers.ts";
import { type ChunksFile, vectorKey } from "../../domain/chunks.ts";
import type { DocumentRecord } from "../../domain/document.ts";
import type { NamespaceRecord } from "../../domain/namespace.ts";
import type { VectorPartition } from "../../domain/partitions.ts";
import { getObjectText } from "../../storage/objects.ts";
import { chunksKey } from "../../storage/object-keys.ts";
import type { VectorStore } from "../../vector-store/types.ts";

/**
 * Embedding reuse: a chunk whose exact text already has a vector in its partition (same namespace,
 * tenant, model and dimensions) takes that vector instead of a new embedding. Two sources, tried in
 * order: on a re-ingest, the document's own current generation (its published chunks file says
 * which chunks are unchanged); then the namespace's embedding pointers, which lead to a vector of
 * any document with that text. Both only say which vector to fetch: a fetched vector is used only
 * if its stored text is the chunk's own, so a stale hint costs an embedding, never a wrong vector.
 */

/** The staging chunks file: the published chunks file plus, on a re-ingest, the unchanged chunks. */
export type StagedChunks = ChunksFile & { reuse?: ChunkReuse };

export interface ChunkReuse {
  /** The run whose vectors are reused: the document's current (searchable) generation. */
  runId: string;
  /** Per new chunk, the sequence number of a chunk with the same text in that run, or null. */
  sequences: (number | null)[];
}

type StagedChunk = StagedChunks["chunks"][number];

function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function embeddingSpace(document: DocumentRecord, namespace: NamespaceRecord, dimension: number): EmbeddingSpace {
  const { provider, model } = namespace.embeddingConfig;
  return { namespaceId: namespace.id, tenantId: document.tenantId, model: `${provider}:${model}`, dimension };
}

/**
 * On a re-ingest, the chunks whose exact text the document's current generation already embedded
 * (its published chunks file says which).
 */
export async function reusableChunks(document: DocumentRecord, chunks: readonly { text: string }[]): Promise<ChunkReuse | undefined> {
  const previous = document.generation;
  if (!previous || previous.runId === document.runId) return undefined;
  const published = await getObjectText(chunksKey(document.namespaceId, document.id));
  if (published === null) return undefined;
  const sequenceOf = new Map<string, number>();
  for (const chunk of (JSON.parse(published) as ChunksFile).chunks) {
    if (!sequenceOf.has(chunk.text) && chunk.metadata.sequence_number < previous.totalChunks) sequenceOf.set(chunk.text, chunk.metadata.sequence_number);
  }
  const sequences = chunks.map((chunk) => sequenceOf.get(chunk.text) ?? null);
  return sequences.some((sequence) => sequence !== null) ? { runId: previous.runId, sequences } : undefined;
}

export interface BatchVectors {
  /** Vectors found for the batch, by sequence number. */
  vectors: Map<number, Float32Array>;
  /** Sequence numbers whose vector came through a pointer that still holds (no pointer to write). */
  throughPointers: Set<number>;
  /** The SHA-256 of each chunk's text, by sequence number: the pointers' key. */
  hashes: Map<number, string>;
}

/** The vectors of a batch's chunks that already exist in the partition, by sequence number. */
export async function existingVectors(
  store: VectorStore,
  partition: VectorPartition,
  document: DocumentRecord,
  space: EmbeddingSpace,
  reuse: ChunkReuse | undefined,
  batch: readonly StagedChunk[],
): Promise<BatchVectors> {
  const vectors = new Map<number, Float32Array>();
  const throughPointers = new Set<number>();
  const hashes = new Map(batch.map((chunk) => [chunk.metadata.sequence_number, textHash(chunk.text)]));
  const fetchChecked = async (wanted: Map<string, StagedChunk[]>, onFound: (chunk: StagedChunk) => void) => {
    if (wanted.size === 0) return;
    const found = await store.getVectors(partition, [...wanted.keys()]);
    for (const [key, chunks] of wanted) {
      const stored = found.get(key);
      for (const chunk of chunks) {
        if (stored && stored.vector.length === space.dimension && stored.text === chunk.text) {
          vectors.set(chunk.metadata.sequence_number, stored.vector);
          onFound(chunk);
        }
      }
    }
  };

  const ownPrevious = new Map<string, StagedChunk[]>();
  for (const chunk of batch) {
    const previous = reuse?.sequences[chunk.metadata.sequence_number];
    if (previous !== null && previous !== undefined) append(ownPrevious, vectorKey(document.id, reuse!.runId, previous), chunk);
  }
  await fetchChecked(ownPrevious, () => {});

  const rest = batch.filter((chunk) => !vectors.has(chunk.metadata.sequence_number));
  if (rest.length === 0) return { vectors, throughPointers, hashes };
  const hashOf = (chunk: StagedChunk) => hashes.get(chunk.metadata.sequence_number)!;
  const pointers = await findEmbeddingPointers(space, rest.map(hashOf));
  const pointed = new Map<string, StagedChunk[]>();
  for (const chunk of rest) {
    const key = pointers.get(hashOf(chunk));
    if (key) append(pointed, key, chunk);
  }
  await fetchChecked(pointed, (chunk) => throughPointers.add(chunk.metadata.sequence_number));
  return { vectors, throughPointers, hashes };
}

/** Points every text of the batch that came without a live pointer at the vector just written for it. */
export async function recordPointers(space: EmbeddingSpace, document: DocumentRecord, batch: readonly StagedChunk[], found: BatchVectors): Promise<void> {
  const pointers = new Map<string, string>();
  for (const chunk of batch) {
    if (found.throughPointers.has(chunk.metadata.sequence_number)) continue;
    const hash = found.hashes.get(chunk.metadata.sequence_number)!;
    if (!pointers.has(hash)) pointers.set(hash, vectorKey(document.id, document.runId, chunk.metadata.sequence_number));
  }
  await recordEmbeddingPointers(space, document.id, [...pointers].map(([hash, key]) => ({ textHash: hash, vectorKey: key })));
}

/** Texts to embed once each: chunks of one batch with the same text share one embedding. */
export function uniqueTexts(chunks: readonly StagedChunk[]): { texts: string[]; indexOf: number[] } {
  const position = new Map<string, number>();
  const texts: string[] = [];
  const indexOf = chunks.map((chunk) => {
    let index = position.get(chunk.text);
    if (index === undefined) {
      index = texts.push(chunk.text) - 1;
      position.set(chunk.text, index);
    }
    return index;
  });
  return { texts, indexOf };
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
