/**
 * End-to-end ingestion benchmark on the local stack: 1,000 TEXT documents through the HTTP API,
 * once as 1,000 TEXT jobs and once as two BATCH jobs of 500 items, measured from the first POST to
 * the last job COMPLETED. Everything (gateway, handlers, workers, DynamoDB Local, the S3/SQS
 * emulator) runs on this machine, so the numbers describe the local stack, not AWS.
 *
 *   npx tsx bench/ingest-e2e.ts
 *
 * Prints a Markdown table and writes bench/results/ingest-e2e.json.
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { MAX_BATCH_ITEMS } from "../functions/shared/domain/ingest-job.ts";
import { startLocalStack } from "../local/stack.ts";
import {
  type BenchApi,
  benchApi,
  createNamespace,
  generateProse,
  isEntryPoint,
  type LatencySummary,
  mapPool,
  ms,
  newOrganizationKey,
  summarize,
  type DocumentWire,
  type JobWire,
  listAll,
  sleep,
  saveResults,
  describeRun,
  type RunConditions,
  startRun,
} from "./support.ts";

export interface IngestE2eOptions {
  documents?: number;
  /** POSTs in flight at once for the TEXT variant. */
  requestConcurrency?: number;
  workerConcurrency?: number;
  /** How often the list endpoint is asked how many jobs have finished. */
  pollIntervalMs?: number;
  /** Per variant; the run is recorded as timed out rather than waiting for ever. */
  timeoutMs?: number;
  /** Where the JSON goes; null skips writing. */
  resultsFile?: string | null;
  log?: (line: string) => void;
}

export interface IngestE2eVariant {
  variant: string;
  jobs: number;
  documents: number;
  payloadCharacters: number;
  requestConcurrency: number;
  accept: {
    /** First POST sent to last 201 received. */
    wallMs: number;
    requestsPerSecond: number;
    documentsPerSecond: number;
    latency: LatencySummary;
  };
  completion: {
    /** First POST sent to the latest completedAt/failedAt of the jobs (server clock, same process). */
    wallMs: number;
    /** Last 201 received to the latest completedAt/failedAt. */
    afterAcceptMs: number;
    documentsPerSecond: number;
    chunksPerSecond: number;
    /** Per job, createdAt to completedAt. */
    jobLatency: LatencySummary;
    timedOut: boolean;
    /** List calls spent polling, which share the process with the workers. */
    pollRequests: number;
  };
  jobsCompleted: number;
  jobsFailed: number;
  documentsCompleted: number;
  documentsFailed: number;
  totalChunks: number;
  totalCharacters: number;
}

export interface IngestE2eReport extends RunConditions {
  benchmark: "ingest-e2e";
  workerConcurrency: number;
  /**
   * One TEXT and one small BATCH job ingested before timing, so module loading and JIT warm-up
   * (the local analogue of Lambda cold starts) stay out of the measured runs.
   */
  warmUp: { firstRequestMs: number; wallMs: number };
  variants: IngestE2eVariant[];
  markdown: string;
}

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/ingest-e2e.json", import.meta.url));
const TEXT_SEED = 31_337;

async function runVariant(
  api: BenchApi,
  name: string,
  bodies: unknown[],
  documents: number,
  payloadCharacters: number,
  requestConcurrency: number,
  options: Required<Pick<IngestE2eOptions, "pollIntervalMs" | "timeoutMs">> & { log: (line: string) => void },
): Promise<IngestE2eVariant> {
  const { log } = options;
  const namespaceId = await createNamespace(api, `bench-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`);
  const base = `/v1/namespace/${namespaceId}`;

  const startedAtEpoch = Date.now();
  const began = performance.now();
  const latencies = await mapPool(bodies, requestConcurrency, async (body) => {
    const response = await api.expect(201, "POST", `${base}/ingest-jobs`, body);
    return response.ms;
  });
  const acceptMs = performance.now() - began;
  const acceptedAtEpoch = startedAtEpoch + acceptMs;
  log(`${name}: ${bodies.length} jobs accepted in ${(acceptMs / 1000).toFixed(2)} s`);

  // Poll until every job is final. The precise end comes from the jobs' own completedAt, so the
  // poll interval only decides how soon we notice, not what is measured.
  const deadline = performance.now() + options.timeoutMs;
  let pollRequests = 0;
  let finished: JobWire[] = [];
  let timedOut = false;
  for (;;) {
    const listed = await listAll<JobWire>(api, `${base}/ingest-jobs?statuses=COMPLETED,FAILED`);
    pollRequests += listed.requests;
    finished = listed.items;
    if (finished.length >= bodies.length) break;
    if (performance.now() > deadline) {
      timedOut = true;
      break;
    }
    log(`${name}: ${finished.length}/${bodies.length} jobs final after ${((performance.now() - began) / 1000).toFixed(1)} s`);
    await sleep(options.pollIntervalMs);
  }

  const endOf = (job: JobWire) => Date.parse(job.completedAt ?? job.failedAt ?? job.createdAt);
  const lastEnd = finished.reduce((latest, job) => Math.max(latest, endOf(job)), startedAtEpoch);
  const wallMs = lastEnd - startedAtEpoch;
  const { items: documentList } = await listAll<DocumentWire>(api, `${base}/documents`);
  const completedDocuments = documentList.filter((document) => document.status === "COMPLETED");
  const totalChunks = completedDocuments.reduce((sum, document) => sum + (document.totalChunks ?? 0), 0);
  const totalCharacters = completedDocuments.reduce((sum, document) => sum + (document.totalCharacters ?? 0), 0);
  const jobsCompleted = finished.filter((job) => job.status === "COMPLETED").length;

  return {
    variant: name,
    jobs: bodies.length,
    documents,
    payloadCharacters,
    requestConcurrency,
    accept: {
      wallMs: acceptMs,
      requestsPerSecond: bodies.length / (acceptMs / 1000),
      documentsPerSecond: documents / (acceptMs / 1000),
      latency: summarize(latencies),
    },
    completion: {
      wallMs,
      afterAcceptMs: lastEnd - acceptedAtEpoch,
      documentsPerSecond: completedDocuments.length / (wallMs / 1000),
      chunksPerSecond: totalChunks / (wallMs / 1000),
      jobLatency: summarize(
        finished.filter((job) => job.completedAt !== null).map((job) => Date.parse(job.completedAt!) - Date.parse(job.createdAt)),
      ),
      timedOut,
      pollRequests,
    },
    jobsCompleted,
    jobsFailed: finished.length - jobsCompleted,
    documentsCompleted: completedDocuments.length,
    documentsFailed: documentList.filter((document) => document.status === "FAILED").length,
    totalChunks,
    totalCharacters,
  };
}

async function warmUpStack(api: BenchApi, texts: readonly string[], timeoutMs: number): Promise<{ firstRequestMs: number; wallMs: number }> {
  const began = performance.now();
  const base = `/v1/namespace/${await createNamespace(api, "bench-warm-up")}`;
  const first = await api.expect(201, "POST", `${base}/ingest-jobs`, { payload: { type: "TEXT", text: texts[0] } });
  await api.expect(201, "POST", `${base}/ingest-jobs`, {
    payload: { type: "BATCH", items: texts.slice(1, 6).map((text) => ({ type: "TEXT", text })) },
  });
  const deadline = performance.now() + timeoutMs;
  while ((await listAll<JobWire>(api, `${base}/ingest-jobs?statuses=COMPLETED,FAILED`)).items.length < 2) {
    if (performance.now() > deadline) throw new Error("the warm-up jobs did not finish");
    await sleep(200);
  }
  return { firstRequestMs: first.ms, wallMs: performance.now() - began };
}

export async function runIngestE2eBench(options: IngestE2eOptions = {}): Promise<IngestE2eReport> {
  const run = startRun();
  const documents = options.documents ?? 1_000;
  const requestConcurrency = options.requestConcurrency ?? 16;
  const workerConcurrency = options.workerConcurrency ?? 4;
  const log = options.log ?? ((line: string) => console.log(line));
  const variantOptions = { pollIntervalMs: options.pollIntervalMs ?? 1_000, timeoutMs: options.timeoutMs ?? 20 * 60_000, log };

  const texts = Array.from({ length: documents }, (_, index) => generateProse(TEXT_SEED + index, 2_048, 4_096));
  const payloadCharacters = texts.reduce((sum, text) => sum + text.length, 0);

  const stack = await startLocalStack({
    workerConcurrency,
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
  });
  const variants: IngestE2eVariant[] = [];
  let warmUp = { firstRequestMs: Number.NaN, wallMs: Number.NaN };
  try {
    const { key } = await newOrganizationKey(`bench-ingest-${Date.now()}`);
    const api = benchApi(stack.baseUrl, key);
    warmUp = await warmUpStack(api, texts, variantOptions.timeoutMs);
    log(`warm-up: first request ${warmUp.firstRequestMs.toFixed(0)} ms, both warm-up jobs final after ${(warmUp.wallMs / 1000).toFixed(1)} s`);

    const textBodies = texts.map((text, index) => ({ name: `doc ${index}`, payload: { type: "TEXT", text } }));
    variants.push(await runVariant(api, `${documents} TEXT jobs`, textBodies, documents, payloadCharacters, requestConcurrency, variantOptions));

    const batchBodies: unknown[] = [];
    for (let start = 0; start < documents; start += MAX_BATCH_ITEMS) {
      const items = texts.slice(start, start + MAX_BATCH_ITEMS).map((text, offset) => ({ type: "TEXT", text, fileName: `doc-${start + offset}.txt` }));
      batchBodies.push({ name: `batch ${start / MAX_BATCH_ITEMS}`, payload: { type: "BATCH", items } });
    }
    variants.push(
      await runVariant(
        api,
        `${batchBodies.length} BATCH jobs × ${Math.min(documents, MAX_BATCH_ITEMS)} TEXT`,
        batchBodies,
        documents,
        payloadCharacters,
        batchBodies.length,
        variantOptions,
      ),
    );
  } finally {
    await stack.stop();
  }

  const markdown = renderTable(variants);
  log("");
  log(markdown);
  const report: IngestE2eReport = {
    benchmark: "ingest-e2e",
    ...run.conditions(),
    workerConcurrency,
    warmUp,
    variants,
    markdown,
  };
  log(`\n${describeRun(report)}`);
  saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
  return report;
}

function renderTable(variants: readonly IngestE2eVariant[]): string {
  const lines = [
    "| variant | jobs | docs | accept time (s) | requests/s | request p50 / p99 (ms) | first POST → all COMPLETED (s) " +
      "| after last 201 (s) | docs/s end to end | chunks | chunks/s | job latency p50 / p99 (s) | failed jobs / docs |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const v of variants) {
    lines.push(
      `| ${v.variant}${v.completion.timedOut ? " (timed out)" : ""} | ${v.jobs} | ${v.documents} | ` +
        `${(v.accept.wallMs / 1000).toFixed(2)} | ${v.accept.requestsPerSecond.toFixed(1)} | ` +
        `${ms(v.accept.latency.p50Ms)} / ${ms(v.accept.latency.p99Ms)} | ` +
        `${(v.completion.wallMs / 1000).toFixed(1)} | ${(v.completion.afterAcceptMs / 1000).toFixed(1)} | ` +
        `${v.completion.documentsPerSecond.toFixed(1)} | ${v.totalChunks} | ${v.completion.chunksPerSecond.toFixed(1)} | ` +
        `${(v.completion.jobLatency.p50Ms / 1000).toFixed(1)} / ${(v.completion.jobLatency.p99Ms / 1000).toFixed(1)} | ` +
        `${v.jobsFailed} / ${v.documentsFailed} |`,
    );
  }
  return lines.join("\n");
}

if (isEntryPoint(import.meta.url)) await runIngestE2eBench();
