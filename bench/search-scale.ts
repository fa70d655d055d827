/**
 * Search at scale (issue 22): many small documents in one partition (10,000 and 100,000 chunks),
 * and 10,000 partitions of 10 chunks each, searched in each mode through the embedded store (the
 * local default) and the search workflow's own fusion. Reports warm p50/p95 per mode, the time to
 * build each corpus, the process's resident memory, and per query the AWS requests the same search
 * makes when deployed, counted from the store calls it issues (each `query` or `queryText` is one
 * S3 Vectors QueryVectors; the generation rule adds one DynamoDB BatchGetItem of the candidates'
 * documents, at most 100 keys, whatever the corpus size).
 *
 * The corpus imitates a public IR test collection: one-chunk documents of 40–120 words drawn from a
 * Zipf-distributed vocabulary of 30,000 words, queries of 2–5 words taken from one document each.
 *
 *   npx tsx bench/search-scale.ts [--sizes 10000,100000] [--partitions 10000] [--queries 300]
 *
 * Writes bench/results/search-scale.json. Run alone: timings are wall-clock on a shared machine.
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { embedLocal } from "../functions/shared/embedding/providers/local-hash.ts";
import { parseVectorKey } from "../functions/shared/domain/chunks.ts";
import { EmbeddedVectorStore } from "../functions/shared/vector-store/embedded.ts";
import type { VectorMatch, VectorRecord } from "../functions/shared/vector-store/types.ts";
import type { VectorPartition } from "../functions/shared/domain/partitions.ts";
import { fuse } from "../functions/shared/workflows/search.ts";
import { EMBEDDING_PROVIDERS } from "../functions/shared/domain/catalogs/embedding-providers.ts";
import { STOP_WORDS } from "../functions/shared/text/analyser.ts";
import { argument, isEntryPoint, numberArgument, saveResults, seededRandom, summarize, type LatencySummary, startRun } from "./support.ts";

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/search-scale.json", import.meta.url));
const DIMENSION = 384;
const TOP_K = 10;
/** The pool search.ts asks each list for at topK 10. */
const POOL = 20;
/** The LOCAL embedder's default hybrid weight. */
const SEMANTIC_WEIGHT = EMBEDDING_PROVIDERS.LOCAL.hybridSemanticWeight;
const VOCABULARY_SIZE = 30_000;
const MODES = ["semantic", "keyword", "hybrid"] as const;
type Mode = (typeof MODES)[number];

/** S3 Vectors and DynamoDB requests one search makes when deployed, per mode. */
const REQUESTS: Record<Mode, string> = {
  semantic: "1 QueryVectors (queryVector) + 1 BatchGetItem",
  keyword: "1 QueryVectors (queryTexts) + 1 BatchGetItem",
  hybrid: "2 QueryVectors in parallel + 1 BatchGetItem",
};

function vocabulary(random: () => number): string[] {
  const onsets = ["b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "st", "tr", "pl", "gr"];
  const vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou"];
  const codas = ["", "n", "r", "s", "t", "l", "m", "nd", "st", "x"];
  const words = new Set<string>();
  while (words.size < VOCABULARY_SIZE) {
    const syllables = 1 + Math.floor(random() * 3);
    let word = "";
    for (let i = 0; i < syllables; i++) word += onsets[Math.floor(random() * onsets.length)]! + vowels[Math.floor(random() * vowels.length)]! + codas[Math.floor(random() * codas.length)]!;
    if (word.length >= 3 && !STOP_WORDS.has(word)) words.add(word);
  }
  return [...words];
}

/** Zipf (s = 1) sampling by inverse transform over the cumulative weights. */
function zipfSampler(size: number, random: () => number): () => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let i = 0; i < size; i++) cumulative[i] = total += 1 / (i + 1);
  return () => {
    const target = random() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

interface Corpus {
  texts: string[];
  queries: { text: string; partition: number }[];
}

function corpus(chunks: number, partitions: number, queries: number, seed: number): Corpus {
  const random = seededRandom(seed);
  const words = vocabulary(random);
  const sample = zipfSampler(words.length, random);
  const texts: string[] = [];
  for (let i = 0; i < chunks; i++) {
    const length = 40 + Math.floor(random() * 81);
    const picked: string[] = [];
    for (let w = 0; w < length; w++) picked.push(words[sample()]!);
    texts.push(`${picked.join(" ")}.`);
  }
  const asked: Corpus["queries"] = [];
  for (let q = 0; q < queries; q++) {
    const chunk = Math.floor(random() * chunks);
    const own = texts[chunk]!.slice(0, -1).split(" ");
    const length = 2 + Math.floor(random() * 4);
    const terms: string[] = [];
    for (let t = 0; t < length; t++) terms.push(own[Math.floor(random() * own.length)]!);
    asked.push({ text: terms.join(" "), partition: chunk % partitions });
  }
  return { texts, queries: asked };
}

function partitionAt(index: number, partitions: number): VectorPartition {
  return { namespaceId: "ns_scale", tenantId: partitions === 1 ? null : `tenant-${index}`, dimension: DIMENSION };
}

function rssMb(): number {
  return Math.round(process.memoryUsage().rss / 1024 / 1024);
}

function candidates(matches: VectorMatch[], scale: (score: number) => number) {
  return matches.map((match) => ({ ...parseVectorKey(match.key)!, text: match.text, metadata: match.metadata, score: scale(match.score) }));
}

export interface ScaleRow {
  scenario: string;
  chunks: number;
  partitions: number;
  buildSeconds: number;
  rssMb: number;
  modes: Record<Mode, LatencySummary & { storeCallsPerQuery: number; awsRequestsPerQuery: string }>;
}

async function measure(name: string, chunks: number, partitions: number, queryCount: number, log: (line: string) => void): Promise<ScaleRow> {
  const { texts, queries } = corpus(chunks, partitions, queryCount, chunks + partitions);
  const store = new EmbeddedVectorStore({ maxIndexes: Number.MAX_SAFE_INTEGER });
  const began = performance.now();
  for (let p = 0; p < partitions; p++) {
    const records: VectorRecord[] = [];
    for (let i = p; i < texts.length; i += partitions) {
      records.push({ key: `doc_${i}#run_1#0`, vector: embedLocal(texts[i]!).vector, text: texts[i]!, metadata: { documentId: `doc_${i}`, sequence_number: 0 } });
      if (records.length === 500) await store.upsert(partitionAt(p, partitions), records.splice(0));
    }
    if (records.length > 0) await store.upsert(partitionAt(p, partitions), records);
  }
  const buildSeconds = (performance.now() - began) / 1000;
  global.gc?.();
  const rss = rssMb();
  log(`${name}: ${chunks} chunks in ${partitions} partition(s) built in ${buildSeconds.toFixed(1)} s, RSS ${rss} MB`);

  const calls = { semantic: 0, keyword: 0, hybrid: 0 };
  const run = (mode: Mode, query: { text: string; partition: number }) => {
    const partition = partitionAt(query.partition, partitions);
    let semantic: VectorMatch[] | null = null;
    let keyword: VectorMatch[] | null = null;
    if (mode !== "keyword") {
      semantic = store.querySync(partition, embedLocal(query.text).vector, { topK: POOL });
      calls[mode] += 1;
    }
    if (mode !== "semantic") {
      keyword = store.queryTextSync(partition, query.text, { topK: POOL });
      calls[mode] += 1;
    }
    if (semantic && keyword) return fuse(candidates(semantic, (s) => s), candidates(keyword, (s) => s / (s + 5)), SEMANTIC_WEIGHT).slice(0, TOP_K);
    return (semantic ?? keyword)!.slice(0, TOP_K);
  };
  // Warm: the JIT and the store's structures, as a function that has served a few requests.
  for (const query of queries.slice(0, 20)) for (const mode of MODES) run(mode, query);
  for (const mode of MODES) calls[mode] = 0;

  const modes = {} as ScaleRow["modes"];
  for (const mode of MODES) {
    const samples: number[] = [];
    for (const query of queries) {
      const start = performance.now();
      run(mode, query);
      samples.push(performance.now() - start);
    }
    modes[mode] = { ...summarize(samples), storeCallsPerQuery: calls[mode] / queries.length, awsRequestsPerQuery: REQUESTS[mode] };
    log(`  ${mode}: p50 ${modes[mode].p50Ms.toFixed(2)} ms, p95 ${modes[mode].p95Ms.toFixed(2)} ms`);
  }
  return { scenario: name, chunks, partitions, buildSeconds, rssMb: rss, modes };
}

function markdown(rows: readonly ScaleRow[]): string {
  const lines = [
    "| corpus | build | RSS | semantic p50 / p95 | keyword p50 / p95 | hybrid p50 / p95 |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  const cell = (summary: LatencySummary) => `${summary.p50Ms.toFixed(1)} / ${summary.p95Ms.toFixed(1)} ms`;
  for (const row of rows) {
    lines.push(`| ${row.scenario} | ${row.buildSeconds.toFixed(0)} s | ${row.rssMb} MB | ${cell(row.modes.semantic)} | ${cell(row.modes.keyword)} | ${cell(row.modes.hybrid)} |`);
  }
  return lines.join("\n");
}

export async function runSearchScaleBench(options: { sizes?: number[]; partitions?: number; queries?: number; resultsFile?: string | null; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  const queries = options.queries ?? 300;
  const run = startRun();
  const rows: ScaleRow[] = [];
  for (const size of options.sizes ?? [10_000, 100_000]) {
    rows.push(await measure(`${size.toLocaleString("en")} chunks, one partition`, size, 1, queries, log));
  }
  const partitions = options.partitions ?? 10_000;
  if (partitions > 0) rows.push(await measure(`${partitions.toLocaleString("en")} partitions × 10 chunks`, partitions * 10, partitions, queries, log));
  const report = {
    benchmark: "search-scale" as const,
    ...run.conditions(),
    topK: TOP_K,
    requestsPerQueryDeployed: REQUESTS,
    rows,
    markdown: markdown(rows),
  };
  log(report.markdown);
  saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
  return report;
}

if (isEntryPoint(import.meta.url)) {
  await runSearchScaleBench({
    sizes: argument("sizes")?.split(",").map(Number),
    partitions: numberArgument("partitions"),
    queries: numberArgument("queries"),
    resultsFile: argument("results"),
  });
  process.exit(0);
}
