import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Embedder } from "../types.ts";
import { STOP_WORDS, stem, tokenize } from "../../text/analyser.ts";

/**
 * The offline `LOCAL` embedder (`local-hash-384`): feature hashing of stemmed words and adjacent word
 * pairs into 384 signed buckets. It knows no meaning, only shared words, which is what local mode
 * and tests need: no model download, no network, identical output on every machine, and texts that
 * share vocabulary score clearly above texts that do not.
 */
export const LOCAL_DIMENSION = 384;

// Pairs carry phrase evidence ("reset password") but are rarer and noisier than single words, so
// they count for less; single words dominate the score.
const BIGRAM_WEIGHT = 0.5;

/** FNV-1a over UTF-16 code units: cheap, allocation-free and good enough before the final mix. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Murmur3's finaliser: spreads FNV's weak high bits so bucket and sign bits are independent. */
function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function pairHash(left: number, right: number): number {
  // Order matters ("data loss" is not "loss data"), and the salt keeps pairs out of the word space.
  return mix32((Math.imul(left, 0x9e3779b1) ^ right ^ 0x5bd1e995) >>> 0);
}

// Reused between calls; embedding is synchronous so one text at a time uses them.
const unigramCounts = new Map<number, number>();
const bigramCounts = new Map<number, number>();

function addFeatures(vector: Float32Array, counts: Map<number, number>, weight: number): void {
  for (const [hash, count] of counts) {
    // Sublinear term frequency: a word repeated ten times is stronger evidence, not ten times more.
    const value = weight * (1 + Math.log(count));
    const bucket = (hash & 0x7fffffff) % LOCAL_DIMENSION;
    vector[bucket] = vector[bucket]! + (hash & 0x80000000 ? -value : value);
  }
}

/** Embeds one text synchronously; `tokens` counts every word token, stop words included. */
export function embedLocal(text: string): { vector: Float32Array; tokens: number } {
  const vector = new Float32Array(LOCAL_DIMENSION);
  const words = tokenize(text);
  unigramCounts.clear();
  bigramCounts.clear();
  let previous = -1;
  for (const word of words) {
    if (STOP_WORDS.has(word)) continue;
    const hash = mix32(fnv1a(stem(word)));
    unigramCounts.set(hash, (unigramCounts.get(hash) ?? 0) + 1);
    // Pairs are adjacent after stop-word removal, so "reset your password" and "reset the
    // password" share the pair "reset password".
    if (previous >= 0) {
      const pair = pairHash(previous, hash);
      bigramCounts.set(pair, (bigramCounts.get(pair) ?? 0) + 1);
    }
    previous = hash;
  }
  // Text with no word (punctuation, emoji, symbols only) still gets features from its characters:
  // a zero vector has no direction, so cosine indexes refuse it (S3 Vectors does).
  if (unigramCounts.size === 0) {
    for (const character of text) {
      if (/\s/u.test(character)) continue;
      const hash = mix32(fnv1a(character) ^ 0x27d4eb2d);
      unigramCounts.set(hash, (unigramCounts.get(hash) ?? 0) + 1);
    }
  }
  addFeatures(vector, unigramCounts, 1);
  addFeatures(vector, bigramCounts, BIGRAM_WEIGHT);

  let sum = 0;
  for (let i = 0; i < LOCAL_DIMENSION; i++) sum += vector[i]! * vector[i]!;
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < LOCAL_DIMENSION; i++) vector[i] = vector[i]! * scale;
  }
  return { vector, tokens: words.length };
}

export class LocalHashEmbedder implements Embedder {
  readonly dimension = LOCAL_DIMENSION;
  // Large batches cost nothing here; the limit only bounds how long one call holds the event loop.
  readonly maxBatch = 256;

  async embedDocuments(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number }> {
    const vectors: Float32Array[] = [];
    let tokens = 0;
    for (let start = 0; start < texts.length; start += this.maxBatch) {
      // The local stack serves HTTP from the same process; let it breathe between slices.
      if (start > 0) await yieldToEventLoop();
      for (const text of texts.slice(start, start + this.maxBatch)) {
        const embedded = embedLocal(text);
        vectors.push(embedded.vector);
        tokens += embedded.tokens;
      }
    }
    return { vectors, tokens };
  }

  async embedQuery(text: string): Promise<{ vector: Float32Array; tokens: number }> {
    return embedLocal(text);
  }
}

export function create(): Embedder {
  return new LocalHashEmbedder();
}
