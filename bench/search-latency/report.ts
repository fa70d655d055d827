import { type LatencySummary, ms } from "../support.ts";
import { type RecallResult } from "./recall.ts";

/** The search-latency benchmark's results and the Markdown tables the README quotes. */

export interface IngestionResult {
  jobs: number;
  documents: number;
  payloadCharacters: number;
  payloadMegabytes: number;
  expectedChunks: number;
  /** Sum of totalChunks over the documents list. */
  listedChunks: number;
  /** Vectors in the namespace's partition of the embedded store. */
  storedVectors: number;
  documentsCompleted: number;
  jobsFailed: number;
  /** First POST to the last 201. */
  acceptMs: number;
  /** First POST to the latest completedAt (server clock, same process). */
  completedMs: number;
  /** First POST to the poll that saw every job final. */
  observedMs: number;
  chunksPerSecond: number;
}

export interface MemorySnapshot {
  rssMb: number;
  heapUsedMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  /** DynamoDB Local (a Java child process), when it can be found through /proc. */
  dynamoDbLocalRssMb: number | null;
}

export interface GcSummary {
  count: number;
  totalMs: number;
  majorCount: number;
  majorMs: number;
  longestMs: number;
}

export interface ScenarioResult {
  scenario: string;
  latency: LatencySummary;
  /** Mean number of results returned (topK at most). */
  meanResults: number;
  /** Queries that returned nothing. */
  emptyResults: number;
  /** Share of filtered results whose category matched the filter (1 when unfiltered). */
  filterPrecision: number;
  /** 1-minute load average before and after (2 means both cores busy on this 2-core machine). */
  loadAverage: { before: number; after: number };
  /** GC pauses of this process during the measured queries. */
  gc: GcSummary;
}

export interface ProfileResult {
  samples: number;
  /**
   * Every piece is timed for one query before the next query starts, so a burst of load from other
   * processes hits all pieces of that query alike and the paired differences stay meaningful.
   */
  interleaved: true;
  /** POST /search over HTTP, for the same queries, measured again next to the pieces. */
  httpSemantic: LatencySummary;
  httpKeyword: LatencySummary;
  /** search() called in process: no gateway, authorizer or namespace read. */
  searchSemantic: LatencySummary;
  searchKeyword: LatencySummary;
  searchHybrid: LatencySummary;
  searchFiltered: LatencySummary;
  /** LOCAL hash embedder on the query text. */
  embedQuery: LatencySummary;
  /** Exact scan for the candidate pool (topK 10 asks for 20). */
  vectorScan: LatencySummary;
  vectorScanFiltered: LatencySummary;
  /** The same scan for a dense random query, as a model embedder's queries are (every component non-zero). */
  vectorScanDense: LatencySummary;
  /** Non-zero components of the LOCAL embedder's query vectors, on average (of 384). */
  queryNonZero: number;
  /** matchesFilter alone, once per slot of the partition (the filtered scan evaluates it first). */
  filterEvaluation: LatencySummary;
  /** BatchGet of the candidates' documents as keepCurrent reads them (consistent, projected to SEARCH_FIELDS). */
  candidateBatchGet: LatencySummary;
  /** Distinct documents among the candidates, on average. */
  candidateDocuments: number;
  /** For comparison: the same BatchGet of whole records (what earlier runs of this profile timed). */
  candidateBatchGetWhole: LatencySummary;
  /** Mean size of one document record as getDocuments returns it (JSON characters). */
  documentRecordBytes: number;
  /** Per query: search() semantic minus embed, scan and BatchGet (what the pieces do not explain). */
  semanticRemainder: LatencySummary;
  /** Per query: HTTP semantic minus search() semantic (client, gateway, authorizer, namespace read, JSON). */
  semanticHttpOverhead: LatencySummary;
  /** loadPartitionIndex when the index is cached: the S3 listing of the partition. */
  keywordListSegments: LatencySummary;
  keywordDocuments: number;
  /** BM25 ranking of every matching chunk from the partition's inverted index. */
  keywordScore: LatencySummary;
  /** Per query: search() keyword minus listing and ranking (mostly reading the top hits' documents). */
  keywordRemainder: LatencySummary;
  /** Chunks with a positive BM25 score per query, on average. */
  keywordMeanScoredChunks: number;
  /** The authorizer's DynamoDB read of the API key. */
  authorizerGet: LatencySummary;
  /** The handler's DynamoDB read of the namespace. */
  namespaceGet: LatencySummary;
  /** GET /v1/namespace/{id} over HTTP: gateway, authorizer and one read, no search work. */
  httpNamespaceGet: LatencySummary;
  gc: GcSummary;
  loadAverage: { before: number; after: number };
}

export interface CorpusResult {
  corpus: string;
  chunks: number;
  ingestion: IngestionResult;
  memoryAfterIngestion: MemorySnapshot;
  /**
   * The first query of each scenario, before any warm-up, in this order. The first semantic query
   * of the first corpus also loads the search handler module; the first keyword query loads and
   * parses every keyword segment of the partition (they are cached in process afterwards).
   */
  firstQueryMs: Record<string, number>;
  memoryAfterKeywordLoad: MemorySnapshot;
  scenarios: ScenarioResult[];
  profile: ProfileResult;
  recall: RecallReport;
  memoryAtEnd: MemorySnapshot;
}

/** Answers compared with a naive exact scan (recall.ts). */
export interface RecallReport {
  /** The store's scan, LOCAL embedder queries. */
  scanSemantic: RecallResult;
  /** The store's scan with the scenario's category filter. */
  scanFiltered: RecallResult;
  /** The store's scan, dense random queries. */
  scanDense: RecallResult;
  /** search() semantic end to end (ids are chunk ids). */
  searchSemantic: RecallResult;
  searchFiltered: RecallResult;
}

export interface SearchLatencyReport {
  benchmark: "search-latency";
  node: string;
  cpus: number;
  cpuModel: string;
  totalMemoryGb: number;
  generatedAt: string;
  settings: {
    chunkSize: number;
    documentCharacters: number;
    topK: number;
    warmUpQueries: number;
    measuredQueries: number;
    profileQueries: number;
    recallQueries: number;
    workerConcurrency: number;
    vocabularyWords: number;
    topics: number;
  };
  target: { description: string; met: boolean | null };
  recallNote: string;
  corpora: CorpusResult[];
  wallSeconds: number;
  markdown: string;
}

export function renderMarkdown(results: readonly CorpusResult[], target: { description: string; met: boolean | null }, recallNote: string): string {
  const lines: string[] = [];
  lines.push("Search latency over HTTP (sequential, one client, topK 10)", "");
  lines.push(
    "| corpus | scenario | p50 (ms) | p95 (ms) | p99 (ms) | mean (ms) | max (ms) | mean results | empty | first query (ms) " +
      "| GC pauses: total / major (ms) | load avg before / after |",
  );
  lines.push("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const result of results) {
    for (const scenario of result.scenarios) {
      const latency = scenario.latency;
      lines.push(
        `| ${result.corpus} | ${scenario.scenario} | ${ms(latency.p50Ms)} | ${ms(latency.p95Ms)} | ${ms(latency.p99Ms)} | ` +
          `${ms(latency.meanMs)} | ${ms(latency.maxMs)} | ${scenario.meanResults.toFixed(1)} | ${scenario.emptyResults} | ` +
          `${ms(result.firstQueryMs[scenario.scenario] ?? Number.NaN)} | ` +
          `${scenario.gc.totalMs.toFixed(0)} / ${scenario.gc.majorMs.toFixed(0)} | ` +
          `${scenario.loadAverage.before.toFixed(2)} / ${scenario.loadAverage.after.toFixed(2)} |`,
      );
    }
  }
  lines.push(
    "",
    `Target: ${target.description}: ${target.met === null ? "not measured" : target.met ? "met" : "MISSED"}.`,
    recallNote,
    "First query: the first request of each scenario on a freshly built corpus, before any warm-up, in table order. " +
      "The first keyword query reads and parses every keyword segment of the partition; later ones use the in-process cache.",
    "",
  );

  lines.push("Corpus build (real ingestion path over HTTP) and memory (one process holds the stack and every corpus built so far)", "");
  lines.push(
    "| corpus | jobs | documents | text (MB) | chunks (listed / expected / vectors) | accept (s) | first POST → all COMPLETED (s) | chunks/s " +
      "| RSS after ingest (MB) | RSS after keyword load (MB) | RSS at end (MB) | heap used at end (MB) | DynamoDB Local RSS (MB) |",
  );
  lines.push("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const result of results) {
    const ingestion = result.ingestion;
    lines.push(
      `| ${result.corpus} | ${ingestion.jobs} | ${ingestion.documents} | ${ingestion.payloadMegabytes.toFixed(1)} | ` +
        `${ingestion.listedChunks} / ${ingestion.expectedChunks} / ${ingestion.storedVectors} | ${(ingestion.acceptMs / 1000).toFixed(1)} | ` +
        `${(ingestion.completedMs / 1000).toFixed(1)} | ${ingestion.chunksPerSecond.toFixed(0)} | ` +
        `${result.memoryAfterIngestion.rssMb.toFixed(0)} | ${result.memoryAfterKeywordLoad.rssMb.toFixed(0)} | ` +
        `${result.memoryAtEnd.rssMb.toFixed(0)} | ${result.memoryAtEnd.heapUsedMb.toFixed(0)} | ` +
        `${result.memoryAtEnd.dynamoDbLocalRssMb === null ? "n/a" : result.memoryAtEnd.dynamoDbLocalRssMb.toFixed(0)} |`,
    );
  }
  lines.push("", "Where the time goes (in process, warm; each query's pieces timed back to back; p50 / p95 ms)", "");
  const header = ["piece", ...results.map((result) => result.corpus)];
  lines.push(`| ${header.join(" | ")} |`, `|---|${results.map(() => "---:").join("|")}|`);
  const row = (label: string, pick: (profile: ProfileResult) => LatencySummary) =>
    lines.push(`| ${label} | ${results.map((result) => `${ms(pick(result.profile).p50Ms)} / ${ms(pick(result.profile).p95Ms)}`).join(" | ")} |`);
  row("HTTP POST /search, semantic", (p) => p.httpSemantic);
  row("· HTTP minus search() (client, gateway, authorizer, namespace read, JSON)", (p) => p.semanticHttpOverhead);
  row("HTTP GET /namespace/{id} (gateway + authorizer + 1 read, no search)", (p) => p.httpNamespaceGet);
  row("authorizer: DynamoDB GetItem of the key", (p) => p.authorizerGet);
  row("handler: DynamoDB GetItem of the namespace", (p) => p.namespaceGet);
  row("search() in process, semantic", (p) => p.searchSemantic);
  row("· embed the query (LOCAL hash)", (p) => p.embedQuery);
  row("· exact vector scan, pool of 20", (p) => p.vectorScan);
  row("  (same scan, dense random query)", (p) => p.vectorScanDense);
  row("· BatchGet of candidate documents (projected, as keepCurrent reads them)", (p) => p.candidateBatchGet);
  row("  (same BatchGet, whole records)", (p) => p.candidateBatchGetWhole);
  row("· remainder (search() minus the three pieces)", (p) => p.semanticRemainder);
  row("search() in process, semantic + filter", (p) => p.searchFiltered);
  row("· filtered vector scan", (p) => p.vectorScanFiltered);
  row("· matchesFilter once per slot", (p) => p.filterEvaluation);
  row("HTTP POST /search, keyword", (p) => p.httpKeyword);
  row("search() in process, keyword", (p) => p.searchKeyword);
  row("· list the partition's segments (index cached)", (p) => p.keywordListSegments);
  row("· BM25 ranking from the inverted index", (p) => p.keywordScore);
  row("· remainder (reading the top hits' documents)", (p) => p.keywordRemainder);
  row("search() in process, hybrid", (p) => p.searchHybrid);
  lines.push(
    `| documents in the partition | ${results.map((result) => result.profile.keywordDocuments).join(" | ")} |`,
    `| non-zero components of a LOCAL query vector (of 384) | ${results.map((result) => result.profile.queryNonZero.toFixed(1)).join(" | ")} |`,
    `| distinct documents among semantic candidates | ${results.map((result) => result.profile.candidateDocuments.toFixed(1)).join(" | ")} |`,
    `| document record size (JSON characters) | ${results.map((result) => result.profile.documentRecordBytes.toFixed(0)).join(" | ")} |`,
    `| chunks with a positive BM25 score per query | ${results.map((result) => result.profile.keywordMeanScoredChunks.toFixed(0)).join(" | ")} |`,
    `| GC pauses during the profile: total / major (ms) | ${results.map((result) => `${result.profile.gc.totalMs.toFixed(0)} / ${result.profile.gc.majorMs.toFixed(0)}`).join(" | ")} |`,
    `| load average before / after the profile | ${results.map((result) => `${result.profile.loadAverage.before.toFixed(2)} / ${result.profile.loadAverage.after.toFixed(2)}`).join(" | ")} |`,
  );
  lines.push("", "Recall against a naive exact scan (recall@k; queries answered with the reference's keys in its order; largest score difference)", "");
  lines.push("| corpus | answer | queries | recall@k | identical order | max score difference |", "|---|---|---:|---:|---:|---:|");
  const recallRows: [string, (report: RecallReport) => RecallResult][] = [
    ["store scan, semantic", (report) => report.scanSemantic],
    ["store scan, semantic + filter", (report) => report.scanFiltered],
    ["store scan, dense random queries", (report) => report.scanDense],
    ["search(), semantic", (report) => report.searchSemantic],
    ["search(), semantic + filter", (report) => report.searchFiltered],
  ];
  for (const result of results) {
    for (const [label, pick] of recallRows) {
      const recall = pick(result.recall);
      lines.push(
        `| ${result.corpus} | ${label} | ${recall.queries} | ${recall.recall.toFixed(4)} | ${recall.identicalOrder} | ${recall.maxScoreDifference.toExponential(1)} |`,
      );
    }
  }
  return lines.join("\n");
}
