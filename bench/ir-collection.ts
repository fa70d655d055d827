/**
 * Retrieval quality on a public IR test collection with human relevance judgments, so our keyword
 * (BM25) mode can be set beside a standard BM25 on the same documents and queries. The collection
 * is committed under bench/data/ (see bench/data/README.md for its source, licence and conversion);
 * nothing is downloaded.
 *
 * Everything goes through the HTTP API of the local stack, so it measures whichever engine main
 * has: each document becomes one TEXT item of BATCH ingest jobs (one chunk per document: the chunk
 * size is the largest allowed, and the document's id rides in the item's metadata), then every
 * query runs in keyword, semantic and hybrid mode with topK 100 and no reranking. Hits are chunks;
 * a document's rank is that of its first chunk. Reported per mode: MAP, nDCG@10, MRR and recall@100
 * (bench/ir-metrics.ts, as trec_eval computes them) and the latency of the search call.
 *
 * Beside them: the published BM25 number for the collection where one exists, and two reference
 * runs of textbook Okapi BM25 computed here on the same texts, over plain words and over our
 * analyser's stems, which say what a standard BM25 scores when no published figure matches our setup.
 *
 *   npx tsx bench/ir-collection.ts [--collection adi] [--results bench/results/ir-collection.json]
 *
 * Writes bench/results/ir-collection.json.
 */
import { existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { MAX_BATCH_ITEMS } from "../functions/shared/domain/ingest-job.ts";
import { MAX_CHUNK_CHARACTERS } from "../functions/shared/domain/ingest-config.ts";
import { stem, tokenize } from "../functions/shared/text/analyser.ts";
import { startLocalStack } from "../local/stack.ts";
import { averagePrecision, type Judgments, type QualityScores, meanScores, referenceBm25 } from "./ir-metrics.ts";
import { argument, benchApi, createNamespace, isEntryPoint, type LatencySummary, newOrganizationKey, saveResults, summarize, waitForJobs, startRun } from "./support.ts";

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/ir-collection.json", import.meta.url));
const MODES = ["keyword", "semantic", "hybrid"] as const;
const TOP_K = 100;

export interface IrCollection {
  documents: { id: string; title: string; text: string }[];
  queries: { id: string; text: string }[];
  qrels: { query: string; document: string; relevance: number }[];
}

interface CollectionInfo {
  file: string;
  title: string;
  source: string;
  /** A BM25 figure someone published for this collection, with where, or null when none was found. */
  published: { scores: Partial<QualityScores>; system: string; citation: string } | null;
}

const COLLECTIONS: Record<string, CollectionInfo> = {
  adi: {
    file: "data/adi.json.gz",
    title: "ADI (82 documents, 35 queries, 170 judgments)",
    source: "SMART project test collection (Cornell), ADI.ALL/ADI.QRY/ADI.REL",
    // No BM25 run on ADI with a published MAP or nDCG was found to cite; the reference runs stand
    // in for it. A collection with one (BEIR's NFCorpus or SciFact, say) is another entry here with
    // its file under bench/data/ (scripts/convert-smart-collection.ts converts the SMART format).
    published: null,
  },
};

export function loadCollection(name: string): { info: CollectionInfo; collection: IrCollection } {
  const info = COLLECTIONS[name];
  if (!info) throw new Error(`--collection: unknown collection ${name} (${Object.keys(COLLECTIONS).join(", ")})`);
  const collection = JSON.parse(gunzipSync(readFileSync(new URL(info.file, import.meta.url))).toString("utf8")) as IrCollection;
  return { info, collection };
}

/** Each query's judgments, keeping only queries with at least one relevant document. */
export function judgmentsByQuery(collection: IrCollection): Map<string, Map<string, number>> {
  const byQuery = new Map<string, Map<string, number>>();
  for (const { query, document, relevance } of collection.qrels) {
    if (relevance <= 0) continue;
    const judged = byQuery.get(query) ?? new Map<string, number>();
    judged.set(document, relevance);
    byQuery.set(query, judged);
  }
  return byQuery;
}

export interface IrRow extends QualityScores {
  run: string;
  queries: number;
  latency: LatencySummary | null;
  /** Each query's average precision (our modes only), to see which queries an engine change moved. */
  averagePrecision?: Record<string, number>;
}

/** The previous results file's rows of our modes, to print how far this run moved from them. */
function previousRows(file: string | null | undefined): Map<string, IrRow> {
  const chosen = file === undefined ? DEFAULT_RESULTS_FILE : file;
  if (chosen === null || !existsSync(chosen)) return new Map();
  try {
    const previous = JSON.parse(readFileSync(chosen, "utf8")) as { rows?: IrRow[] };
    return new Map((previous.rows ?? []).map((row) => [row.run, row]));
  } catch {
    return new Map();
  }
}

const f3 = (value: number | undefined) => (value === undefined ? "—" : value.toFixed(3));
const signed = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(3)}`;

function markdownTable(rows: readonly IrRow[], info: CollectionInfo): string {
  const lines = ["| run | MAP | nDCG@10 | MRR | recall@100 | p50 ms | p95 ms |", "|---|---:|---:|---:|---:|---:|---:|"];
  for (const row of rows) {
    lines.push(`| ${row.run} | ${f3(row.map)} | ${f3(row.ndcgAt10)} | ${f3(row.mrr)} | ${f3(row.recallAt100)} | ${row.latency ? row.latency.p50Ms.toFixed(1) : "—"} | ${row.latency ? row.latency.p95Ms.toFixed(1) : "—"} |`);
  }
  const published = info.published;
  lines.push(
    published
      ? `| published BM25 (${published.system}; ${published.citation}) | ${f3(published.scores.map)} | ${f3(published.scores.ndcgAt10)} | ${f3(published.scores.mrr)} | ${f3(published.scores.recallAt100)} | — | — |`
      : "| published BM25 | none found for this collection | | | | | |",
  );
  return lines.join("\n");
}

export async function runIrCollectionBench(options: { collection?: string; resultsFile?: string | null; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  const name = options.collection ?? "adi";
  const { info, collection } = loadCollection(name);
  const judgments = judgmentsByQuery(collection);
  const queries = collection.queries.filter((query) => judgments.has(query.id));
  const run = startRun();
  const previous = previousRows(options.resultsFile);

  const referenceRow = (run: string, search: (query: string, topK: number) => string[]): IrRow => ({
    run,
    queries: queries.length,
    latency: null,
    ...meanScores(queries.map((query) => ({ ranking: search(query.text, TOP_K), judged: judgments.get(query.id)! }))),
  });
  const rows: IrRow[] = [
    referenceRow("reference Okapi BM25 (k1 1.2, b 0.75), plain words", referenceBm25(collection.documents)),
    // The same scoring over the words our analyser produces (folded, stemmed, stop words kept), so a
    // gap between our keyword mode and the plain reference splits into analysis and scoring.
    referenceRow("reference Okapi BM25, our analyser's stems", referenceBm25(collection.documents, (text) => tokenize(text).map(stem))),
  ];

  const stack = await startLocalStack({ workerConcurrency: 4, rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  try {
    const { key } = await newOrganizationKey(`bench-ir-${Date.now()}`);
    const api = benchApi(stack.baseUrl, key);
    const namespaceId = await createNamespace(api, `ir-${name}`);
    const base = `/v1/namespace/${namespaceId}`;
    const began = performance.now();
    const jobIds: string[] = [];
    for (let start = 0; start < collection.documents.length; start += MAX_BATCH_ITEMS) {
      const items = collection.documents.slice(start, start + MAX_BATCH_ITEMS).map((document) => ({
        type: "TEXT",
        text: document.text,
        fileName: `${name}-${document.id}.txt`,
        config: { chunkSize: MAX_CHUNK_CHARACTERS, chunkOverlap: 0, metadata: { irDocument: document.id } },
      }));
      const job = await api.expect<{ data: { id: string } }>(201, "POST", `${base}/ingest-jobs`, { payload: { type: "BATCH", items } });
      jobIds.push(job.body.data.id);
    }
    await waitForJobs(api, base, jobIds);
    const ingestSeconds = (performance.now() - began) / 1000;
    log(`ingested ${collection.documents.length} documents in ${ingestSeconds.toFixed(1)} s`);

    for (const mode of MODES) {
      // One untimed query first, so the percentiles describe warm searches, not the first load.
      await api.expect(200, "POST", `${base}/search`, { query: "warm up", mode, topK: TOP_K, rerank: false });
      const samples: number[] = [];
      const runs: { ranking: string[]; judged: Judgments }[] = [];
      for (const query of queries) {
        const response = await api.expect<{ data: { metadata?: Record<string, unknown> }[] }>(200, "POST", `${base}/search`, { query: query.text, mode, topK: TOP_K, rerank: false });
        samples.push(response.ms);
        const ranking: string[] = [];
        for (const hit of response.body.data) {
          const document = hit.metadata?.irDocument;
          if (typeof document !== "string") throw new Error(`a ${mode} hit carries no irDocument metadata`);
          if (!ranking.includes(document)) ranking.push(document);
        }
        runs.push({ ranking, judged: judgments.get(query.id)! });
      }
      const row: IrRow = {
        run: `ours: ${mode}`,
        queries: queries.length,
        latency: summarize(samples),
        ...meanScores(runs),
        averagePrecision: Object.fromEntries(queries.map((query, index) => [query.id, Number(averagePrecision(runs[index]!.ranking, runs[index]!.judged).toFixed(4))])),
      };
      rows.push(row);
      const before = previous.get(row.run);
      if (before) log(`${mode} against the previous results: MAP ${signed(row.map - before.map)}, nDCG@10 ${signed(row.ndcgAt10 - before.ndcgAt10)}, MRR ${signed(row.mrr - before.mrr)}`);
      log(`${mode}: MAP ${f3(row.map)}, nDCG@10 ${f3(row.ndcgAt10)}, MRR ${f3(row.mrr)}, recall@100 ${f3(row.recallAt100)}, p50 ${row.latency!.p50Ms.toFixed(1)} ms`);
    }
    const report = {
      benchmark: "ir-collection" as const,
      ...run.conditions(),
      collection: { name, title: info.title, source: info.source, documents: collection.documents.length, queries: queries.length, judgments: collection.qrels.length },
      embedder: "LOCAL (local-hash-384)",
      topK: TOP_K,
      ingestSeconds,
      published: info.published,
      rows,
      markdown: markdownTable(rows, info),
    };
    log(report.markdown);
    saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
    return report;
  } finally {
    await stack.stop();
  }
}

if (isEntryPoint(import.meta.url)) {
  await runIrCollectionBench({ collection: argument("collection"), resultsFile: argument("results") });
  process.exit(0);
}
