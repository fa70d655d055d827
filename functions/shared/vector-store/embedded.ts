import { endianness } from "node:os";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { matchesFilter } from "../domain/metadata-filter.ts";
import { clampTopK, type StoredVector, type VectorMatch, type VectorQueryOptions, type VectorRecord, type VectorStore } from "./types.ts";
import { type VectorPartition } from "../domain/partitions.ts";
import { type MetadataValue } from "../domain/metadata-filter.ts";
import { recordViolation, S3_VECTORS_LIMITS, VectorQuotaError, VectorValidationError, vectorViolation } from "./limits.ts";
import MiniSearch from "minisearch";
import { searchTerms } from "../text/analyser.ts";

/**
 * The local-mode vector store: exact (brute-force) cosine search in process memory. Each partition
 * keeps its vectors in one contiguous Float32Array, so a query is a single linear pass of dot
 * products over normalised vectors, keeping the best k as it goes. That is exact and has no index
 * to build or tune. A query with few non-zero components, as the LOCAL embedder's are (about 5 of
 * 384: a few hashed words), is multiplied only where it is non-zero, which computes the very same
 * sums. Measured on a 2-core machine (bench/search-latency.ts), a top-20 query over 100,000 × 384
 * takes about 12 ms that way and about 60 ms for a dense query (a model embedder's); over 10,000,
 * 1.3 and 7 ms.
 *
 * It refuses what S3 Vectors refuses, with the same errors (see limits.ts): zero or non-finite
 * vectors, metadata over the key count or size limits, dimensions outside 1–4,096, and a partition
 * beyond the bucket's index quota, counted as S3 Vectors would count its indexes.
 *
 * Full-text search (what S3 Vectors answers from `queryTexts`) is BM25 from MiniSearch: each
 * partition keeps an inverted index of its chunk texts, updated with every write and delete and
 * saved in the same snapshot, so a query reads only the postings of its own terms.
 */

interface Partition {
  namespaceId: string;
  tenantId: string | null;
  dimension: number;
  count: number;
  /** `capacity × dimension` floats; slots `0..count-1` are live. */
  vectors: Float32Array;
  keys: string[];
  texts: string[];
  metadata: Record<string, MetadataValue>[];
  slots: Map<string, number>;
  /** BM25 over the chunk texts, by key. */
  text: MiniSearch<TextDocument>;
}

interface TextDocument {
  key: string;
  text: string;
}

/**
 * Classic BM25 (Robertson's k1 and b, no BM25+ floor), the ranking S3 Vectors documents for
 * full-text search, over the service's own terms (text/analyser.ts `searchTerms`).
 */
const BM25 = { k: 1.2, b: 0.75, d: 0 };
const TEXT_INDEX_OPTIONS = {
  idField: "key",
  fields: ["text"],
  storeFields: [],
  tokenize: searchTerms,
  // `searchTerms` has lowercased and stemmed already.
  processTerm: (term: string) => term,
  searchOptions: { bm25: BM25 },
};

/** Terms in more than this share of a partition's chunks, and in more than COMMON_TERM_MIN_CHUNKS, are common. */
const COMMON_TERM_SHARE = 0.05;
const COMMON_TERM_MIN_CHUNKS = 2_000;

/** MiniSearch 7.2's internals this store reads (the version is pinned; embedded-text-search.test.ts covers them). */
interface MiniSearchInternals {
  /** term → field id → chunk's short id → term frequency; deleted chunks linger until vacuumed. */
  _index: { get(term: string): Map<number, Map<number, number>> | undefined };
  _idToShortId: Map<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
}

const internals = (index: MiniSearch<TextDocument>) => index as unknown as MiniSearchInternals;

/**
 * The plain BM25 sum of a MiniSearch result: MiniSearch multiplies it by the number of query terms
 * the chunk holds (a coordination factor), which S3 Vectors' BM25 does not, and which measured worse
 * on the IR collection (bench/ir-collection.ts: MAP 0.331 with it, against 0.390 for reference BM25).
 */
function bm25Sum(result: { score: number; queryTerms: string[] }): number {
  return result.score / Math.max(1, result.queryTerms.length);
}

/** How many chunks hold `term` (as MiniSearch counts it for BM25's idf). */
function documentFrequency(index: MiniSearch<TextDocument>, term: string): number {
  return internals(index)._index.get(term)?.get(0)?.size ?? 0;
}

/** What `terms` add to one chunk's BM25 sum, by MiniSearch's own formula and statistics, and how many it holds. */
function commonTermsScore(index: MiniSearch<TextDocument>, key: string, terms: string[]): { score: number; matched: number } {
  const inner = internals(index);
  const shortId = inner._idToShortId.get(key);
  if (shortId === undefined) return { score: 0, matched: 0 };
  const length = inner._fieldLength.get(shortId)?.[0] ?? 0;
  const normalised = BM25.k * (1 - BM25.b + (BM25.b * length) / inner._avgFieldLength[0]!);
  let score = 0;
  let matched = 0;
  for (const term of terms) {
    const postings = inner._index.get(term)?.get(0);
    const frequency = postings?.get(shortId);
    if (!postings || !frequency) continue;
    const idf = Math.log(1 + (index.documentCount - postings.size + 0.5) / (postings.size + 0.5));
    score += idf * (BM25.d + (frequency * (BM25.k + 1)) / (frequency + normalised));
    matched += 1;
  }
  return { score, matched };
}

function newTextIndex(): MiniSearch<TextDocument> {
  return new MiniSearch<TextDocument>(TEXT_INDEX_OPTIONS);
}

// Small: a store may hold many small partitions (one per tenant); growth doubles.
const INITIAL_CAPACITY = 8;
const LIST_PAGE_SIZE = 1000;
const FILE_MAGIC = "KISVEC02";
/** Snapshots from before full-text search: their text indexes are rebuilt from the texts on load. */
const FILE_MAGIC_WITHOUT_TEXT_INDEX = "KISVEC01";

function partitionId(namespaceId: string, tenantId: string | null): string {
  // JSON keeps "no tenant" (null) distinct from every tenant id, including an empty string.
  return JSON.stringify([namespaceId, tenantId]);
}

function copyMetadata(metadata: Record<string, MetadataValue>): Record<string, MetadataValue> {
  const copy: Record<string, MetadataValue> = {};
  for (const [key, value] of Object.entries(metadata)) copy[key] = Array.isArray(value) ? [...value] : value;
  return copy;
}

/**
 * The best `k` rows seen so far, best first: by score, then by key (the smaller first), the order
 * results are returned in, so which of several tied rows take the last places does not depend on
 * where they sit in the partition. Most rows cost one comparison with `floor`; the few that pass it
 * an insertion into at most 100 entries.
 */
class TopK {
  readonly scores: number[] = [];
  readonly slots: number[] = [];
  /** The lowest score kept once k rows are; -Infinity until then. */
  floor = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly k: number,
    private readonly keys: readonly string[],
  ) {}

  offer(score: number, slot: number): void {
    const { scores, slots, keys } = this;
    let at = slots.length;
    while (at > 0 && (score > scores[at - 1]! || (score === scores[at - 1]! && keys[slot]! < keys[slots[at - 1]!]!))) at--;
    if (at >= this.k) return;
    scores.splice(at, 0, score);
    slots.splice(at, 0, slot);
    if (slots.length > this.k) scores.pop(), slots.pop();
    if (slots.length === this.k) this.floor = scores[this.k - 1]!;
  }
}

/**
 * A query's non-zero components, by the running sum the dense loop adds them to (component j to
 * sum j mod 4, the last d mod 4 to the first), in increasing j: so skipping the zeros leaves every
 * sum bit for bit as it was, since adding a zero product changes no sum (stored vectors are
 * finite). Null past a quarter of the components, where the scattered reads stop paying (they
 * break even with the dense loop at about half).
 */
function sparseQuery(query: Float32Array): number[][] | null {
  const d = query.length;
  const sums: number[][] = [[], [], [], []];
  let count = 0;
  for (let j = 0; j < d; j++) if (query[j] !== 0) sums[j < d - (d % 4) ? j % 4 : 0]!.push(j), count++;
  return count > d / 4 ? null : sums;
}

export interface EmbeddedVectorStoreOptions {
  /** Indexes the imitated bucket may hold; S3 Vectors' quota unless a test wants a small one. */
  maxIndexes?: number;
}

export class EmbeddedVectorStore implements VectorStore {
  private readonly partitions = new Map<string, Partition>();
  /** The imitated bucket's index quota; tests lower it rather than create 10,000 partitions. */
  maxIndexes: number;

  constructor(options: EmbeddedVectorStoreOptions = {}) {
    this.maxIndexes = options.maxIndexes ?? S3_VECTORS_LIMITS.maxIndexesPerBucket;
  }

  async upsert(partition: VectorPartition, records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    for (const record of records) this.checkDimension(partition, record.vector, `vector for ${record.key}`);
    // S3 Vectors refuses the whole PutVectors call when one record is invalid.
    for (const record of records) {
      const violation = recordViolation(record);
      if (violation) throw new VectorValidationError(violation);
    }
    if (!this.partitionFor(partition, false)) await this.createPartition(partition);
    const target = this.partitionFor(partition, true)!;
    for (const record of records) {
      let slot = target.slots.get(record.key);
      if (slot === undefined) {
        slot = target.count++;
        this.ensureCapacity(target, target.count);
        target.slots.set(record.key, slot);
        target.keys[slot] = record.key;
        target.text.add({ key: record.key, text: record.text });
      } else {
        target.text.replace({ key: record.key, text: record.text });
      }
      writeNormalized(target.vectors, slot * target.dimension, record.vector);
      target.texts[slot] = record.text;
      target.metadata[slot] = copyMetadata(record.metadata);
    }
  }

  async getVectors(partition: VectorPartition, keys: string[]): Promise<Map<string, StoredVector>> {
    const found = new Map<string, StoredVector>();
    const target = this.partitionFor(partition, false);
    if (!target) return found;
    for (const key of keys) {
      const slot = target.slots.get(key);
      if (slot === undefined) continue;
      found.set(key, { vector: target.vectors.slice(slot * target.dimension, (slot + 1) * target.dimension), text: target.texts[slot]! });
    }
    return found;
  }

  async deleteKeys(partition: VectorPartition, keys: string[]): Promise<void> {
    const target = this.partitionFor(partition, false);
    if (!target) return;
    for (const key of keys) {
      const slot = target.slots.get(key);
      if (slot === undefined) continue;
      const last = target.count - 1;
      // Moving the last slot into the hole keeps the live vectors contiguous for the scan.
      if (slot !== last) {
        const lastKey = target.keys[last]!;
        const d = target.dimension;
        target.vectors.copyWithin(slot * d, last * d, last * d + d);
        target.keys[slot] = lastKey;
        target.texts[slot] = target.texts[last]!;
        target.metadata[slot] = target.metadata[last]!;
        target.slots.set(lastKey, slot);
      }
      target.keys.length = last;
      target.texts.length = last;
      target.metadata.length = last;
      target.slots.delete(key);
      target.text.discard(key);
      target.count = last;
    }
  }

  async query(partition: VectorPartition, vector: Float32Array, options: VectorQueryOptions): Promise<VectorMatch[]> {
    return this.querySync(partition, vector, options);
  }

  /** The query itself; synchronous so benchmarks can time it without event-loop noise. */
  querySync(partition: VectorPartition, vector: Float32Array, options: VectorQueryOptions): VectorMatch[] {
    this.checkDimension(partition, vector, "query vector");
    const violation = vectorViolation(vector);
    if (violation) throw new VectorValidationError(`Invalid query vector: ${violation}`);
    const target = this.partitionFor(partition, false);
    const k = clampTopK(options.topK);
    if (!target || target.count === 0 || k === 0) return [];

    const d = target.dimension;
    const query = new Float32Array(d);
    writeNormalized(query, 0, vector);
    const data = target.vectors;
    const filter = options.filter;
    const metadata = target.metadata;
    const best = new TopK(k, target.keys);
    const sparse = sparseQuery(query);
    const [z0, z1, z2, z3] = sparse ?? [[], [], [], []];
    const tail = d - (d % 4);
    for (let slot = 0, base = 0; slot < target.count; slot++, base += d) {
      // Matching metadata costs less than a dense dot product and more than a sparse one: so the
      // dense scan filters first, the sparse one only rows that would make the top k (few, once
      // k rows are kept). Either way a row the filter refuses is never kept.
      if (filter && !sparse && !matchesFilter(metadata[slot]!, filter)) continue;
      // Four independent sums let the JIT overlap the multiply-adds.
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      if (sparse) {
        for (const j of z0!) s0 += data[base + j]! * query[j]!;
        for (const j of z1!) s1 += data[base + j]! * query[j]!;
        for (const j of z2!) s2 += data[base + j]! * query[j]!;
        for (const j of z3!) s3 += data[base + j]! * query[j]!;
      } else {
        let j = 0;
        for (; j < tail; j += 4) {
          s0 += data[base + j]! * query[j]!;
          s1 += data[base + j + 1]! * query[j + 1]!;
          s2 += data[base + j + 2]! * query[j + 2]!;
          s3 += data[base + j + 3]! * query[j + 3]!;
        }
        for (; j < d; j++) s0 += data[base + j]! * query[j]!;
      }
      const dot = s0 + s1 + s2 + s3;
      if (dot < best.floor || (filter && sparse && !matchesFilter(metadata[slot]!, filter))) continue;
      best.offer(dot, slot);
    }

    return best.slots.map((slot, rank) => ({
      key: target.keys[slot]!,
      score: Math.min(1, Math.max(0, (1 + best.scores[rank]!) / 2)),
      text: target.texts[slot]!,
      metadata: copyMetadata(target.metadata[slot]!),
    }));
  }

  async queryText(partition: VectorPartition, text: string, options: VectorQueryOptions): Promise<VectorMatch[]> {
    return this.queryTextSync(partition, text, options);
  }

  /**
   * BM25 over the partition's chunk texts, each distinct query term once. A term in more than
   * `COMMON_TERM_SHARE` of a large partition's chunks ("the", "data") weighs little and has a
   * posting list as long as the partition, so, as in a search engine's common-terms query, chunks are
   * found by the query's rarer terms (MiniSearch's BM25 over their short postings) and the common
   * terms then add their BM25 to those chunks only, looked up chunk by chunk. A query of common terms
   * only is found by the rarest of them. When that leaves fewer than k matches (after the filter),
   * every chunk with any query term is scored.
   */
  queryTextSync(partition: VectorPartition, text: string, options: VectorQueryOptions): VectorMatch[] {
    const target = this.partitionFor(partition, false);
    const k = clampTopK(options.topK);
    if (!target || target.count === 0 || k === 0) return [];
    const terms = [...new Set(searchTerms(text))];
    if (terms.length === 0) return [];
    const index = target.text;
    const asTerms = { tokenize: (term: string) => [term] };
    const query = (subset: string[]) => ({ combineWith: "OR" as const, queries: subset });
    const cutoff = Math.max(COMMON_TERM_MIN_CHUNKS, index.documentCount * COMMON_TERM_SHARE);
    const frequencies = new Map(terms.map((term) => [term, documentFrequency(index, term)] as const));
    const common = terms.filter((term) => frequencies.get(term)! > cutoff);
    if (common.length > 0) {
      let anchors = terms.filter((term) => frequencies.get(term)! <= cutoff);
      if (anchors.length === 0) anchors = [common.reduce((rarest, term) => (frequencies.get(term)! < frequencies.get(rarest)! ? term : rarest))];
      const others = terms.filter((term) => !anchors.includes(term));
      const found = index.search(query(anchors), asTerms);
      for (const result of found) {
        const added = commonTermsScore(index, result.id as string, others);
        result.score = bm25Sum(result) + added.score;
      }
      const best = this.bestTextMatches(target, found, k, options);
      if (best.length === k) return best;
    }
    const found = index.search(query(terms), asTerms);
    for (const result of found) result.score = bm25Sum(result);
    return this.bestTextMatches(target, found, k, options);
  }

  /** The best k of scored results that pass the filter, ties by key as in `querySync`. */
  private bestTextMatches(target: Partition, results: { id: unknown; score: number }[], k: number, options: VectorQueryOptions): VectorMatch[] {
    const filter = options.filter;
    const best = new TopK(k, target.keys);
    for (const result of results) {
      const slot = target.slots.get(result.id as string);
      if (slot === undefined || result.score < best.floor) continue;
      if (filter && !matchesFilter(target.metadata[slot]!, filter)) continue;
      best.offer(result.score, slot);
    }
    return best.slots.map((slot, rank) => ({
      key: target.keys[slot]!,
      score: best.scores[rank]!,
      text: target.texts[slot]!,
      metadata: copyMetadata(target.metadata[slot]!),
    }));
  }

  async *listKeys(partition: VectorPartition): AsyncIterable<string[]> {
    const target = this.partitionFor(partition, false);
    if (!target) return;
    // A snapshot, so deletes made while the caller walks the pages cannot skip keys.
    const keys = target.keys.slice(0, target.count);
    for (let start = 0; start < keys.length; start += LIST_PAGE_SIZE) yield keys.slice(start, start + LIST_PAGE_SIZE);
  }

  async dropPartition(partition: VectorPartition): Promise<void> {
    this.partitions.delete(partitionId(partition.namespaceId, partition.tenantId));
  }

  async listPartitions(namespaceId: string): Promise<{ tenantId: string | null }[]> {
    const found: { tenantId: string | null }[] = [];
    for (const partition of this.partitions.values()) {
      if (partition.namespaceId === namespaceId) found.push({ tenantId: partition.tenantId });
    }
    return found;
  }

  async listAllPartitions(): Promise<VectorPartition[]> {
    return [...this.partitions.values()].map(({ namespaceId, tenantId, dimension }) => ({ namespaceId, tenantId, dimension }));
  }

  async countIndexes(): Promise<number> {
    return this.partitions.size + this.namespacesWithPartitions().size;
  }

  async indexesNeededFor(partition: Pick<VectorPartition, "namespaceId" | "tenantId">): Promise<number> {
    if (this.partitions.has(partitionId(partition.namespaceId, partition.tenantId))) return 0;
    return this.namespacesWithPartitions().has(partition.namespaceId) ? 1 : 2;
  }

  /** What S3 Vectors' CreateIndex checks: the dimension, and room in the bucket for the new indexes. */
  private async createPartition(partition: VectorPartition): Promise<void> {
    const { minDimension, maxDimension } = S3_VECTORS_LIMITS;
    if (!Number.isInteger(partition.dimension) || partition.dimension < minDimension || partition.dimension > maxDimension) {
      throw new VectorValidationError(`dimension must be between ${minDimension} and ${maxDimension}`);
    }
    const indexes = await this.countIndexes();
    if (indexes + (await this.indexesNeededFor(partition)) > this.maxIndexes) {
      throw new VectorQuotaError(this.maxIndexes, partition.namespaceId);
    }
  }

  private namespacesWithPartitions(): Set<string> {
    return new Set([...this.partitions.values()].map((partition) => partition.namespaceId));
  }

  /**
   * Visits every record of a partition with its stored (unit, float32) vector, so tests and
   * benchmarks can check the scan against a reference of their own. The vector and metadata are
   * the store's own, lent for the duration of the call: copy them to keep them, never write them.
   */
  forEachEntry(
    partition: Pick<VectorPartition, "namespaceId" | "tenantId">,
    visit: (key: string, vector: Float32Array, metadata: Readonly<Record<string, MetadataValue>>) => void,
  ): void {
    const target = this.partitions.get(partitionId(partition.namespaceId, partition.tenantId));
    if (!target) return;
    const d = target.dimension;
    for (let slot = 0; slot < target.count; slot++) {
      visit(target.keys[slot]!, target.vectors.subarray(slot * d, (slot + 1) * d), target.metadata[slot]!);
    }
  }

  /** Number of vectors in a partition (0 when it does not exist). */
  size(partition: Pick<VectorPartition, "namespaceId" | "tenantId">): number {
    return this.partitions.get(partitionId(partition.namespaceId, partition.tenantId))?.count ?? 0;
  }

  clear(): void {
    this.partitions.clear();
  }

  /**
   * Writes every partition to `file`, atomically (a temporary file renamed over the old one), so a
   * crash mid-save leaves the previous snapshot. Format: the magic, a partition count, then per
   * partition a length-prefixed JSON header (ids, keys, texts, metadata), its vectors as raw
   * little-endian float32, and its full-text index (length-prefixed MiniSearch JSON).
   */
  async saveTo(file: string): Promise<void> {
    assertLittleEndian();
    // Everything is copied before the first await, so writes arriving mid-save cannot tear it.
    const chunks: Uint8Array[] = [Buffer.from(FILE_MAGIC, "ascii"), u32(this.partitions.size)];
    for (const p of this.partitions.values()) {
      const header = Buffer.from(
        JSON.stringify({
          namespaceId: p.namespaceId,
          tenantId: p.tenantId,
          dimension: p.dimension,
          count: p.count,
          keys: p.keys.slice(0, p.count),
          texts: p.texts.slice(0, p.count),
          metadata: p.metadata.slice(0, p.count),
        }),
        "utf8",
      );
      chunks.push(u32(header.length), header);
      chunks.push(new Uint8Array(p.vectors.buffer, p.vectors.byteOffset, p.count * p.dimension * 4).slice());
      const textIndex = Buffer.from(JSON.stringify(p.text), "utf8");
      chunks.push(u32(textIndex.length), textIndex);
    }
    await mkdir(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    const handle = await open(temporary, "w");
    try {
      for (const chunk of chunks) await handle.write(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file).catch(async (error: unknown) => {
      await rm(temporary, { force: true });
      throw error;
    });
  }

  /**
   * Replaces the contents with a snapshot written by `saveTo`. Returns false (and changes nothing)
   * when the file does not exist, which is the first start of a fresh data directory.
   */
  async loadFrom(file: string): Promise<boolean> {
    assertLittleEndian();
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return false;
      throw error;
    }
    const magic = data.subarray(0, 8).toString("ascii");
    if (magic !== FILE_MAGIC && magic !== FILE_MAGIC_WITHOUT_TEXT_INDEX) throw new Error(`${file} is not a vector store snapshot`);
    const loaded = new Map<string, Partition>();
    let offset = 8;
    const partitionCount = data.readUInt32LE(offset);
    offset += 4;
    for (let i = 0; i < partitionCount; i++) {
      const headerLength = data.readUInt32LE(offset);
      offset += 4;
      const header = JSON.parse(data.subarray(offset, offset + headerLength).toString("utf8")) as {
        namespaceId: string;
        tenantId: string | null;
        dimension: number;
        count: number;
        keys: string[];
        texts: string[];
        metadata: Record<string, MetadataValue>[];
      };
      offset += headerLength;
      const floats = header.count * header.dimension;
      const capacity = Math.max(INITIAL_CAPACITY, header.count);
      const vectors = new Float32Array(capacity * header.dimension);
      // Copied byte-wise: the file buffer gives no 4-byte alignment guarantee for a Float32Array view.
      new Uint8Array(vectors.buffer).set(data.subarray(offset, offset + floats * 4));
      offset += floats * 4;
      const slots = new Map<string, number>();
      header.keys.forEach((key, slot) => slots.set(key, slot));
      let text: MiniSearch<TextDocument>;
      if (magic === FILE_MAGIC) {
        const length = data.readUInt32LE(offset);
        offset += 4;
        text = MiniSearch.loadJSON<TextDocument>(data.subarray(offset, offset + length).toString("utf8"), TEXT_INDEX_OPTIONS);
        offset += length;
      } else {
        text = newTextIndex();
        text.addAll(header.keys.map((key, slot) => ({ key, text: header.texts[slot]! })));
      }
      loaded.set(partitionId(header.namespaceId, header.tenantId), { ...header, vectors, slots, text });
    }
    this.partitions.clear();
    for (const [id, partition] of loaded) this.partitions.set(id, partition);
    return true;
  }

  private partitionFor(partition: VectorPartition, create: boolean): Partition | undefined {
    const id = partitionId(partition.namespaceId, partition.tenantId);
    let found = this.partitions.get(id);
    if (!found && create) {
      found = {
        namespaceId: partition.namespaceId,
        tenantId: partition.tenantId,
        dimension: partition.dimension,
        count: 0,
        vectors: new Float32Array(INITIAL_CAPACITY * partition.dimension),
        keys: [],
        texts: [],
        metadata: [],
        slots: new Map(),
        text: newTextIndex(),
      };
      this.partitions.set(id, found);
    }
    if (found && found.dimension !== partition.dimension) {
      throw new Error(`partition holds ${found.dimension}-dimensional vectors, not ${partition.dimension}`);
    }
    return found;
  }

  private checkDimension(partition: VectorPartition, vector: Float32Array, what: string): void {
    if (vector.length !== partition.dimension) {
      throw new Error(`${what} has ${vector.length} dimensions, the partition ${partition.dimension}`);
    }
  }

  private ensureCapacity(partition: Partition, count: number): void {
    const needed = count * partition.dimension;
    if (needed <= partition.vectors.length) return;
    let capacity = partition.vectors.length / partition.dimension;
    while (capacity * partition.dimension < needed) capacity *= 2;
    const grown = new Float32Array(capacity * partition.dimension);
    grown.set(partition.vectors);
    partition.vectors = grown;
  }
}

/** Stores unit vectors so a dot product is the cosine; a zero vector stays zero. */
function writeNormalized(target: Float32Array, offset: number, vector: Float32Array): void {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < vector.length; i++) target[offset + i] = vector[i]! * scale;
}

function u32(value: number): Uint8Array {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
}

function assertLittleEndian(): void {
  if (endianness() !== "LE") throw new Error("vector store snapshots are only supported on little-endian machines");
}

// Kept on globalThis so that every copy of this module loaded in the process (different import
// paths, test module isolation) shares one store.
const SINGLETON = Symbol.for("knowledge-ingestion-service.embedded-vector-store");

/** The process-wide embedded store that local mode's handlers and workers share. */
export function embeddedVectorStore(): EmbeddedVectorStore {
  const holder = globalThis as { [SINGLETON]?: EmbeddedVectorStore };
  holder[SINGLETON] ??= new EmbeddedVectorStore();
  return holder[SINGLETON];
}

/** The local stack's store (vector-store/registry.ts): one per process, shared by every function in it. */
export function create(): VectorStore {
  return embeddedVectorStore();
}
