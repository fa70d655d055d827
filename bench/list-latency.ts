/**
 * listIngestJobs page latency against namespace size: the same list requests over HTTP in a namespace with 100
 * jobs and in one with 100,000. The list indexes are meant to make a page cost the same however
 * large the namespace is (target: within 1.5×). Workers are off, so jobs stay as inserted.
 *
 *   npx tsx bench/list-latency.ts
 *
 * Prints a Markdown table and writes bench/results/list-latency.json.
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { BatchWriteCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "../functions/shared/db/dynamo/client.ts";
import { config } from "../functions/shared/platform/env.ts";
import { jobItem } from "../functions/shared/db/ingest-jobs.ts";
import { insertJobWithPayload } from "../functions/shared/workflows/ingestion/stored-payloads.ts";
import { listGroup } from "../functions/shared/db/dynamo/keys.ts";
import { INDEX } from "../functions/shared/db/dynamo/table-schema.ts";
import type { IngestJobRecord } from "../functions/shared/domain/ingest-job.ts";
import type { Status } from "../functions/shared/domain/statuses.ts";
import { newId } from "../functions/shared/platform/ids.ts";
import { nowIso } from "../functions/shared/platform/time.ts";
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
  saveResults,
  describeRun,
  type RunConditions,
  startRun,
} from "./support.ts";

/**
 * How jobs are written. `transact` is the production path (insertJobWithPayload, then a transition for
 * jobs that are not QUEUED); `batch-write` writes the same items (jobItem) 25 at a time;
 * `auto` starts with `transact` and switches when the projected time for the large namespace is
 * too long.
 */
export type InsertMode = "auto" | "transact" | "batch-write";

export interface ListLatencyOptions {
  smallNamespaceJobs?: number;
  largeNamespaceJobs?: number;
  perPage?: number;
  /** Pages followed before the deep page (fewer when the namespace has fewer full pages). */
  deepPageHops?: number;
  warmUpRequests?: number;
  timedRequests?: number;
  insertMode?: InsertMode;
  insertConcurrency?: number;
  /** In `auto` mode: projected seconds for the rest of the large namespace above which batch-write takes over. */
  autoSwitchSeconds?: number;
  /** Where the JSON goes; null skips writing. */
  resultsFile?: string | null;
  log?: (line: string) => void;
}

/** The same cycle as the pagination tests: 40% COMPLETED, 20% each QUEUED, FAILED and PROCESSING. */
const STATUS_CYCLE: Status[] = ["QUEUED", "COMPLETED", "FAILED", "PROCESSING", "COMPLETED"];
const FILTER = ["COMPLETED", "FAILED"] as const;
/** One shared payload text (~500 characters) keeps item size the same in both namespaces. */
const PAYLOAD_TEXT = generateProse(4_242, 480, 520);
const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/list-latency.json", import.meta.url));

interface InsertPhase {
  mode: "transact" | "batch-write";
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
}

function statusOf(index: number): Status {
  return STATUS_CYCLE[index % STATUS_CYCLE.length]!;
}

async function insertTransact(namespaceId: string, from: number, to: number, concurrency: number, progress: (done: number) => void) {
  let done = 0;
  await mapPool(
    Array.from({ length: to - from }, (_, offset) => from + offset),
    concurrency,
    async (index) => {
      const job = await insertJobWithPayload({
        namespaceId,
        tenantId: null,
        name: `job ${index}`,
        externalId: null,
        payload: { type: "TEXT", text: PAYLOAD_TEXT },
        config: null,
        documentCount: 1,
        now: nowIso(),
      });
      const status = statusOf(index);
      if (status !== "QUEUED") {
        // Set as data: the lifecycle has no QUEUED → COMPLETED, and the list indexes are under test, not the worker.
        await dynamo().send(new PutCommand({ TableName: config.tableName(), Item: jobItem({ ...job, status }) }));
      }
      progress(++done);
    },
  );
}

/** The record insertJobWithPayload writes, with the status (and its timestamps) set from the start. */
function jobRecord(namespaceId: string, index: number): IngestJobRecord {
  const now = nowIso();
  const status = statusOf(index);
  const started = status !== "QUEUED";
  return {
    id: newId("ingestJob"),
    namespaceId,
    tenantId: null,
    externalId: null,
    name: `job ${index}`,
    status,
    error: status === "FAILED" ? "1 of 1 document failed" : null,
    payload: { type: "TEXT", text: PAYLOAD_TEXT },
    payloadObjectKey: null,
    config: null,
    createdAt: now,
    queuedAt: now,
    preProcessingAt: started ? now : null,
    processingAt: started ? now : null,
    completedAt: status === "COMPLETED" ? now : null,
    failedAt: status === "FAILED" ? now : null,
    updatedAt: now,
    runId: newId("ingestJob").slice(4),
    documentIds: [newId("document")],
    documentsTotal: 1,
    documentsCreated: started,
    documentsCompleted: status === "COMPLETED" ? 1 : 0,
    documentsFailed: status === "FAILED" ? 1 : 0,
  };
}

async function insertBatchWrite(namespaceId: string, from: number, to: number, concurrency: number, progress: (done: number) => void) {
  const table = config.tableName();
  const batches: number[][] = [];
  for (let start = from; start < to; start += 25) {
    batches.push(Array.from({ length: Math.min(25, to - start) }, (_, offset) => start + offset));
  }
  let done = 0;
  await mapPool(batches, concurrency, async (indexes) => {
    let requests = indexes.map((index) => ({ PutRequest: { Item: jobItem(jobRecord(namespaceId, index)) } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 8) throw new Error("BatchWriteItem kept returning unprocessed items");
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      const result = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (result.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
    done += indexes.length;
    progress(done);
  });
}

async function fillNamespace(
  namespaceId: string,
  count: number,
  options: { mode: InsertMode; concurrency: number; autoSwitchSeconds: number; log: (line: string) => void; label: string },
): Promise<InsertPhase[]> {
  const phases: InsertPhase[] = [];
  const run = async (mode: "transact" | "batch-write", from: number, to: number) => {
    const began = performance.now();
    let lastReport = began;
    const progress = (done: number) => {
      const now = performance.now();
      if (now - lastReport < 10_000 && from + done < to) return;
      lastReport = now;
      const rate = done / ((now - began) / 1000);
      options.log(`${options.label}: ${from + done}/${count} jobs (${mode}, ${rate.toFixed(0)} jobs/s)`);
    };
    await (mode === "transact" ? insertTransact : insertBatchWrite)(namespaceId, from, to, options.concurrency, progress);
    const seconds = (performance.now() - began) / 1000;
    phases.push({ mode, jobs: to - from, seconds, jobsPerSecond: (to - from) / seconds });
  };
  if (options.mode !== "auto" || count <= 2_000) {
    await run(options.mode === "batch-write" ? "batch-write" : "transact", 0, count);
    return phases;
  }
  // Measure the production path first and keep it if the whole namespace can be written that way in time.
  const trial = 2_000;
  await run("transact", 0, trial);
  const projected = (count - trial) / phases[0]!.jobsPerSecond;
  const mode = projected > options.autoSwitchSeconds ? "batch-write" : "transact";
  options.log(
    `${options.label}: transact inserts run at ${phases[0]!.jobsPerSecond.toFixed(0)} jobs/s; ` +
      `${(count - trial).toLocaleString("en-US")} more would take ~${projected.toFixed(0)} s, continuing with ${mode}`,
  );
  await run(mode, trial, count);
  return phases;
}

interface Page {
  data: { id: string }[];
  pagination: { nextCursor: string | null; prevCursor: string | null; hasMore: boolean };
}

interface Probe {
  /** Page number (1 = first) or a description. */
  page: string;
  run: () => Promise<number>;
}

/** An HTTP probe that checks every response is a full page, so a broken request cannot look fast. */
function httpProbe(api: BenchApi, path: string, perPage: number, page: string): Probe {
  return {
    page,
    run: async () => {
      const response = await api.request<Page>("GET", path);
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${JSON.stringify(response.body).slice(0, 300)}`);
      if (response.body.data.length !== perPage) throw new Error(`GET ${path} returned ${response.body.data.length} items, expected ${perPage}`);
      return response.ms;
    },
  };
}

async function namespaceProbes(api: BenchApi, namespaceId: string, total: number, perPage: number, maxHops: number) {
  const base = `/v1/namespace/${namespaceId}/ingest-jobs?perPage=${perPage}`;
  // The deepest page reachable within maxHops that is still full and still has a next page.
  const hops = Math.max(1, Math.min(maxHops, Math.floor((total - 1) / perPage) - 1));
  let cursor: string | null = null;
  for (let hop = 0; hop < hops; hop++) {
    const page: { body: Page } = await api.expect(200, "GET", cursor ? `${base}&cursor=${encodeURIComponent(cursor)}` : base);
    cursor = page.body.pagination.nextCursor;
    if (!cursor) throw new Error(`namespace ${namespaceId} ran out of pages after ${hop + 1}`);
  }
  const deepPath = `${base}&cursor=${encodeURIComponent(cursor!)}`;
  const deep = await api.expect<Page>(200, "GET", deepPath);
  const prevCursor = deep.body.pagination.prevCursor;
  if (!prevCursor || !deep.body.pagination.hasMore) throw new Error("the deep page has no previous or next page");
  const deepPage = hops + 1;
  const rawGroup = listGroup("collection", { collection: "JOBS", namespaceId, tenantId: null, status: null })!;
  return {
    first: httpProbe(api, base, perPage, "1"),
    deep: httpProbe(api, deepPath, perPage, String(deepPage)),
    filtered: httpProbe(api, `${base}&statuses=${FILTER.join(",")}`, perPage, "1"),
    backward: httpProbe(api, `${base}&cursorDirection=backward&cursor=${encodeURIComponent(prevCursor)}`, perPage, String(deepPage - 1)),
    // The first page's main DynamoDB read alone, without HTTP or the service around it.
    rawQuery: {
      page: "1",
      run: async () => {
        const began = performance.now();
        const result = await dynamo().send(
          new QueryCommand({
            TableName: config.tableName(),
            IndexName: INDEX.collection.name,
            KeyConditionExpression: "#pk = :pk",
            ExpressionAttributeNames: { "#pk": INDEX.collection.partitionKey },
            ExpressionAttributeValues: { ":pk": rawGroup },
            ScanIndexForward: false,
            Limit: perPage + 1,
          }),
        );
        if (result.Items?.length !== perPage + 1) throw new Error("raw query returned a short page");
        return performance.now() - began;
      },
    } satisfies Probe,
  };
}

type ScenarioName = keyof Awaited<ReturnType<typeof namespaceProbes>>;

const SCENARIOS: { name: ScenarioName; label: string }[] = [
  { name: "first", label: "first page" },
  { name: "deep", label: "deep page (forward cursor)" },
  { name: "filtered", label: `status filter ${FILTER.join(",")}` },
  { name: "backward", label: "backward page (prevCursor)" },
  { name: "rawQuery", label: "DynamoDB Query alone (GSI1, first page)" },
];

export interface ListLatencyRow {
  scenario: string;
  small: { jobs: number; page: string; latency: LatencySummary };
  large: { jobs: number; page: string; latency: LatencySummary };
  /** large ÷ small. */
  ratioP50: number;
  ratioP95: number;
  withinTarget: { p50: boolean; p95: boolean };
}

export interface ListLatencyReport extends RunConditions {
  benchmark: "list-latency";
  perPage: number;
  timedRequests: number;
  warmUpRequests: number;
  targetRatio: number;
  statusMix: Record<string, number>;
  inserts: { small: InsertPhase[]; large: InsertPhase[] };
  rows: ListLatencyRow[];
  markdown: string;
}

const TARGET_RATIO = 1.5;

export async function runListLatencyBench(options: ListLatencyOptions = {}): Promise<ListLatencyReport> {
  const run = startRun();
  const smallJobs = options.smallNamespaceJobs ?? 100;
  const largeJobs = options.largeNamespaceJobs ?? 100_000;
  const perPage = options.perPage ?? 30;
  const warmUpRequests = options.warmUpRequests ?? 20;
  const timedRequests = options.timedRequests ?? 200;
  const log = options.log ?? ((line: string) => console.log(line));
  const insertOptions = {
    mode: options.insertMode ?? "auto",
    concurrency: options.insertConcurrency ?? 32,
    autoSwitchSeconds: options.autoSwitchSeconds ?? 600,
    log,
  };

  const stack = await startLocalStack({ workers: false, rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  const rows: ListLatencyRow[] = [];
  let inserts: ListLatencyReport["inserts"];
  try {
    const { key } = await newOrganizationKey(`bench-list-${Date.now()}`);
    const api = benchApi(stack.baseUrl, key);
    const small = await createNamespace(api, "bench-small");
    const large = await createNamespace(api, "bench-large");
    inserts = {
      small: await fillNamespace(small, smallJobs, { ...insertOptions, label: "small namespace" }),
      large: await fillNamespace(large, largeJobs, { ...insertOptions, label: "large namespace" }),
    };
    const smallProbes = await namespaceProbes(api, small, smallJobs, perPage, options.deepPageHops ?? 10);
    const largeProbes = await namespaceProbes(api, large, largeJobs, perPage, options.deepPageHops ?? 10);

    for (const scenario of SCENARIOS) {
      const probes = [smallProbes[scenario.name], largeProbes[scenario.name]] as const;
      for (let i = 0; i < warmUpRequests; i++) for (const probe of probes) await probe.run();
      const samples: [number[], number[]] = [[], []];
      // Alternate which namespace goes first so drift (GC, JIT, SQLite caches) hits both alike.
      for (let i = 0; i < timedRequests; i++) {
        const order = i % 2 === 0 ? [0, 1] : [1, 0];
        for (const which of order) samples[which]!.push(await probes[which]!.run());
      }
      const smallLatency = summarize(samples[0]);
      const largeLatency = summarize(samples[1]);
      const row: ListLatencyRow = {
        scenario: scenario.label,
        small: { jobs: smallJobs, page: probes[0].page, latency: smallLatency },
        large: { jobs: largeJobs, page: probes[1].page, latency: largeLatency },
        ratioP50: largeLatency.p50Ms / smallLatency.p50Ms,
        ratioP95: largeLatency.p95Ms / smallLatency.p95Ms,
        withinTarget: {
          p50: largeLatency.p50Ms / smallLatency.p50Ms <= TARGET_RATIO,
          p95: largeLatency.p95Ms / smallLatency.p95Ms <= TARGET_RATIO,
        },
      };
      rows.push(row);
      log(`${scenario.label}: p50 ${ms(smallLatency.p50Ms)} ms vs ${ms(largeLatency.p50Ms)} ms (${row.ratioP50.toFixed(2)}×)`);
    }
  } finally {
    await stack.stop();
  }

  const statusMix: Record<string, number> = {};
  for (const status of STATUS_CYCLE) statusMix[status] = (statusMix[status] ?? 0) + 1 / STATUS_CYCLE.length;
  const markdown = renderTable(rows);
  log("");
  log(markdown);
  const report: ListLatencyReport = {
    benchmark: "list-latency",
    ...run.conditions(),
    perPage,
    timedRequests,
    warmUpRequests,
    targetRatio: TARGET_RATIO,
    statusMix,
    inserts,
    rows,
    markdown,
  };
  log(`\n${describeRun(report)}`);
  saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
  return report;
}

function renderTable(rows: readonly ListLatencyRow[]): string {
  const [first] = rows;
  const smallJobs = first?.small.jobs.toLocaleString("en-US") ?? "small";
  const largeJobs = first?.large.jobs.toLocaleString("en-US") ?? "large";
  const lines = [
    `| scenario | page (${smallJobs} / ${largeJobs}) | ${smallJobs} jobs p50 / p95 (ms) | ${largeJobs} jobs p50 / p95 (ms) ` +
      `| ratio p50 | ratio p95 | within ${TARGET_RATIO}× (p50 / p95) |`,
    "|---|---:|---:|---:|---:|---:|---|",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.scenario} | ${row.small.page} / ${row.large.page} | ` +
        `${ms(row.small.latency.p50Ms)} / ${ms(row.small.latency.p95Ms)} | ${ms(row.large.latency.p50Ms)} / ${ms(row.large.latency.p95Ms)} | ` +
        `${row.ratioP50.toFixed(2)}× | ${row.ratioP95.toFixed(2)}× | ` +
        `${row.withinTarget.p50 ? "yes" : "no"} / ${row.withinTarget.p95 ? "yes" : "no"} |`,
    );
  }
  return lines.join("\n");
}

if (isEntryPoint(import.meta.url)) await runListLatencyBench();
