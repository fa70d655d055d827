/**
 * Helpers shared by the benchmarks that drive the local stack over HTTP: an API client that times
 * every call, percentiles, a bounded-concurrency map and a seeded random source.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { ensureOrganization, issueApiKey } from "../functions/shared/db/organizations.ts";
export { mapLimited as mapPool } from "../functions/shared/platform/concurrency.ts";
import { seededRandom } from "../test/support/seeded-random.ts";

export { seededRandom };

export interface LatencySummary {
  count: number;
  meanMs: number;
  minMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Nearest-rank percentile of an ascending list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? Number.NaN;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    count: sorted.length,
    meanMs: sorted.length > 0 ? total / sorted.length : Number.NaN,
    minMs: sorted[0] ?? Number.NaN,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export interface TimedResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  ms: number;
}

export interface BenchApi {
  request<T = any>(method: string, path: string, body?: unknown): Promise<TimedResponse<T>>;
  /** Like request, but throws unless the status is the expected one. */
  expect<T = any>(status: number, method: string, path: string, body?: unknown): Promise<TimedResponse<T>>;
}

/** A client for one API key. The time covers the whole exchange, body included. */
export function benchApi(baseUrl: string, key: string): BenchApi {
  const request = async <T>(method: string, path: string, body?: unknown): Promise<TimedResponse<T>> => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const began = performance.now();
    const response = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    const ms = performance.now() - began;
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: the caller sees the raw text in error messages.
    }
    return { status: response.status, headers: response.headers, body: parsed as T, ms };
  };
  return {
    request,
    async expect(status, method, path, body) {
      const response = await request<any>(method, path, body);
      if (response.status !== status) {
        throw new Error(`${method} ${path} answered ${response.status}, expected ${status}: ${JSON.stringify(response.body).slice(0, 500)}`);
      }
      return response;
    },
  };
}

/** A fresh organization with one API key, as the keys CLI would create it. */
export async function newOrganizationKey(name: string): Promise<{ organizationId: string; key: string }> {
  const { organization } = await ensureOrganization(name);
  const { key } = await issueApiKey(organization, "bench");
  return { organizationId: organization.id, key };
}

export async function createNamespace(api: BenchApi, name: string, settings: Record<string, unknown> = {}): Promise<string> {
  const slug = `${name}-${Math.random().toString(36).slice(2, 8)}`.toLowerCase();
  const created = await api.expect<{ data: { id: string } }>(201, "POST", "/v1/namespace", { name, slug, ...settings });
  return created.body.data.id;
}

/** The fields of an ingest job and a document the benchmarks read. */
export interface JobWire {
  id: string;
  status: string;
  createdAt: string;
  completedAt: string | null;
  failedAt: string | null;
}

export interface DocumentWire {
  id: string;
  status: string;
  totalChunks: number | null;
  totalCharacters: number | null;
}

/** All records of a list endpoint, following nextCursor at 100 per page, and how many requests it took. */
export async function listAll<T>(api: BenchApi, path: string): Promise<{ items: T[]; requests: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let requests = 0;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const page: { body: { data: T[]; pagination: { nextCursor: string | null } } } = await api.expect(
      200,
      "GET",
      `${path}${separator}perPage=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    requests += 1;
    items.push(...page.body.data);
    cursor = page.body.pagination.nextCursor;
  } while (cursor);
  return { items, requests };
}

/** The value after `--name` on the command line, if given. */
export function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

/** `--name <number>`, or undefined when not given. */
export function numberArgument(name: string): number | undefined {
  const value = argument(name);
  return value ? Number(value) : undefined;
}

/**
 * Waits until every job of `jobIds` is COMPLETED (and completed after `since`, for re-ingests);
 * throws as soon as one FAILED.
 */
export async function waitForJobs(api: BenchApi, base: string, jobIds: readonly string[], since = ""): Promise<void> {
  for (;;) {
    const { items } = await listAll<JobWire>(api, `${base}/ingest-jobs`);
    const mine = items.filter((job) => jobIds.includes(job.id));
    const failed = mine.find((job) => job.status === "FAILED");
    if (failed) throw new Error(`ingest job ${failed.id} failed`);
    if (mine.length === jobIds.length && mine.every((job) => job.status === "COMPLETED" && (job.completedAt ?? "") >= since)) return;
    await sleep(500);
  }
}

export const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

export function writeJson(file: string, report: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** Writes a benchmark's report to its results file (the default unless the caller chose one, or none with null). */
export function saveResults(chosen: string | null | undefined, defaultFile: string, report: unknown, log: (line: string) => void): void {
  const file = chosen === undefined ? defaultFile : chosen;
  if (file === null) return;
  writeJson(file, report);
  log(`wrote ${file}`);
}

/** What every report says about the run it comes from: a number is only as quiet as the machine was. */
export interface RunConditions {
  node: string;
  cpus: number;
  generatedAt: string;
  /** 1/5/15-minute load averages when the run began and ended. */
  loadAverage: { atStart: number[]; atEnd: number[] };
  /** The whole benchmark, set-up (stack start, inserts) included. */
  wallSeconds: number;
}

/** Call as a benchmark begins; `conditions()` as it ends gives the head of its report. */
export function startRun(): { conditions: () => RunConditions } {
  const began = performance.now();
  const atStart = loadavg();
  return {
    conditions: () => ({
      node: process.version,
      cpus: cpus().length,
      generatedAt: new Date().toISOString(),
      loadAverage: { atStart, atEnd: loadavg() },
      wallSeconds: (performance.now() - began) / 1000,
    }),
  };
}

/** One line for the log: wall time and load from start to end. */
export function describeRun(run: RunConditions): string {
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  return `benchmark wall time ${run.wallSeconds.toFixed(1)} s; load average ${load(run.loadAverage.atStart)} at start, ${load(run.loadAverage.atEnd)} at end (${run.cpus} CPUs)`;
}

export function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(1) : "n/a";
}

/** True when the module at `moduleUrl` is the script node was started with (not an import). */
export function isEntryPoint(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return moduleUrl === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

const VOCABULARY = (
  "the of and to in a is that for it as was with be by on not this are or from at which but have an " +
  "they were there been one all we their has would when if so no will can more other its into only " +
  "some could time these two may then first any now such like over even most made after also many " +
  "before must through back years where much way well down should because each just those people how " +
  "little state good very make world still own work long here between both life being under never day " +
  "same another while last might great old year since against right used take three customer support " +
  "account invoice billing contract renewal policy employee onboarding handbook security incident " +
  "report quarterly revenue forecast product release roadmap feature request integration service " +
  "platform dashboard metric latency availability region outage postmortem runbook escalation ticket " +
  "warehouse shipment inventory supplier procurement approval budget compliance audit retention " +
  "privacy consent requirement specification architecture migration database schema deployment " +
  "configuration monitoring alerting documentation training certification partner agreement"
).split(" ");

/**
 * Plain prose of `low` to `high` characters in paragraphs of a few sentences, the kind of text a
 * knowledge base holds (support articles, policies, reports). The same seed gives the same text.
 */
export function generateProse(seed: number, low: number, high: number): string {
  const random = seededRandom(seed);
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)] ?? "the";
  const target = between(low, high);
  const paragraphs: string[] = [];
  let length = 0;
  while (length < target) {
    const sentences: string[] = [];
    for (let s = between(3, 7); s > 0; s--) {
      const words: string[] = [];
      for (let w = between(8, 24); w > 0; w--) words.push(random() < 0.03 ? String(between(2, 2030)) : pick());
      if (words.length > 6 && random() < 0.3) words[between(2, words.length - 3)] += ",";
      const sentence = words.join(" ");
      sentences.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}${random() < 0.92 ? "." : "?"}`);
    }
    const paragraph = sentences.join(" ");
    paragraphs.push(paragraph);
    length += paragraph.length + 2;
  }
  // Cut at the last sentence end inside the target so the size stays within bounds.
  const text = paragraphs.join("\n\n");
  if (text.length <= high) return text;
  const cut = text.lastIndexOf(".", high - 1);
  return text.slice(0, cut > low ? cut + 1 : high);
}
