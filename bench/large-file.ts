/**
 * Large-file benchmark: one document per accepted text format at the upload limit, ingested through
 * the real path (createUpload presigned upload, a MANAGED_FILE job, then the real ingest worker handler fed by
 * an SQS poller), each case in a fresh child process so its peak resident memory is its own. The
 * parent runs DynamoDB Local, the S3/SQS emulator and the API; the child runs only the worker, as
 * one Lambda instance would (one invocation at a time, batches of the IngestWorker's batch size).
 * Vectors go through the deployed S3 Vectors store to a stub endpoint that accepts and drops them,
 * so the child pays for building and sending every request but does not keep vectors in memory
 * (the embedded local store would, and no Lambda does).
 *
 *   npx tsx bench/large-file.ts [--formats text,csv] [--size-mb 200] [--batch 5] [--kill-mb 5120] [--results file]
 *
 * The `pdf` case is a 400-page PDF at the PDF upload limit (200 MiB), read 100 pages per worker step.
 * `--batch N` adds a case with one BATCH job of N plain-text documents of the same size, which the
 * worker receives as one SQS batch (the IngestWorker's records run concurrently in one invocation).
 * Prints a Markdown table and writes bench/results/large-file.json.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { SQSClient } from "@aws-sdk/client-sqs";
import { fileTypeOf, uploadLimit } from "../functions/shared/domain/catalogs/file-types.ts";
import { MAX_UPLOAD_BYTES_DEFAULT } from "../functions/shared/platform/env.ts";
import { paddedPdf } from "../test/fixtures/documents.ts";
import { deletePrefix } from "../functions/shared/storage/objects.ts";
import { namespacePrefix } from "../functions/shared/storage/object-keys.ts";
import { nodeOptions } from "../lib/node-options.ts";
import { workerForQueue } from "../lib/workers.ts";
import { startLocalStack } from "../local/stack.ts";
import { startPoller } from "../local/sqs-poller.ts";
import { argument, numberArgument, type BenchApi, benchApi, createNamespace, generateProse, isEntryPoint, newOrganizationKey, saveResults, seededRandom, sleep, startRun, type RunConditions } from "./support.ts";

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/large-file.json", import.meta.url));
const MB = 1024 * 1024;

/** The generated inputs; `text-unicode` is prose with typographic quotes and dashes, which V8 keeps two bytes per character. */
export const CASES = ["text", "text-unicode", "markdown", "html", "json", "jsonl", "csv", "tsv", "pdf"] as const;
export type CaseName = (typeof CASES)[number];

const FILES: Record<CaseName, { extension: string; contentType: string }> = {
  text: { extension: "txt", contentType: "text/plain" },
  "text-unicode": { extension: "txt", contentType: "text/plain" },
  markdown: { extension: "md", contentType: "text/markdown" },
  html: { extension: "html", contentType: "text/html" },
  json: { extension: "json", contentType: "application/json" },
  jsonl: { extension: "jsonl", contentType: "application/jsonl" },
  csv: { extension: "csv", contentType: "text/csv" },
  tsv: { extension: "tsv", contentType: "text/tab-separated-values" },
  pdf: { extension: "pdf", contentType: "application/pdf" },
};

/**
 * The PDF case is a file at the PDF upload limit (200 MiB, not `--size-mb`): 400 text pages padded
 * with incompressible streams, the way scans and photos make real uploads big, read
 * PDF_PAGES_PER_STEP pages per worker step so the case also measures the page-range fan-out.
 */
const PDF_PAGES = 400;
const PDF_PAGES_PER_STEP = 100;

async function writePdf(path: string): Promise<number> {
  const limit = uploadLimit(fileTypeOf("pdf"));
  // What textPdf writes for the pages themselves, measured: well under 2 MB for 400 pages.
  const bytes = await paddedPdf(PDF_PAGES, Math.floor((limit - 2 * MB) / PDF_PAGES));
  if (bytes.byteLength > limit) throw new Error(`the generated PDF is ${bytes.byteLength} bytes, over the ${limit}-byte limit`);
  writeFileSync(path, bytes);
  return bytes.byteLength;
}

export interface CaseResult {
  case: string;
  format: string;
  documents: number;
  fileBytes: number;
  /** Whole case in the child: first message received to the job final. */
  wallSeconds: number;
  status: string;
  error: string | null;
  totalChunks: number | null;
  totalCharacters: number | null;
  /** Child process after loading the worker, before the first message. */
  baselineRssMb: number;
  /** process.resourceUsage().maxRSS of the child at the end. */
  peakRssMb: number;
  /** Highest process.memoryUsage().rss sampled every 20 ms. */
  sampledPeakRssMb: number;
  /** Records per worker invocation, in order. */
  batches: number[];
  /** SHA-256 of the chunk texts of the published chunks file(s) (createChunksDownloadUrl), for comparing runs: the same input must give the same chunks. */
  chunksDigest: string | null;
  /** Requests the vector sink received (PutVectors batches), proof the vectors left the worker. */
  vectorRequests: number;
  /** The child died (killed by the kernel or V8 out of memory) before the job settled. */
  crashed: string | null;
}

export interface LargeFileReport extends RunConditions {
  benchmark: "large-file";
  sizeMb: number;
  workerMemoryMb: number;
  workerBatchSize: number;
  cases: CaseResult[];
  markdown: string;
}

export interface LargeFileOptions {
  cases?: readonly CaseName[];
  sizeBytes?: number;
  /** Documents of the batch case; 0 skips it. */
  batch?: number;
  resultsFile?: string | null;
  log?: (line: string) => void;
  /** Extra environment for the child (the worker). */
  workerEnv?: Record<string, string>;
  /** The child is stopped above this resident size (default 5,120 MB). */
  killMb?: number;
}

/** Writes `targetBytes` (at most) of one format, record by record, without holding the file in memory. */
async function writeCorpus(name: Exclude<CaseName, "pdf">, path: string, targetBytes: number, seed: number): Promise<number> {
  const out = createWriteStream(path);
  const random = seededRandom(seed);
  let written = 0;
  let buffered: string[] = [];
  let bufferedBytes = 0;
  const flush = async () => {
    if (buffered.length === 0) return;
    const piece = buffered.join("");
    buffered = [];
    bufferedBytes = 0;
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  };
  /** False when the piece would pass the target; the trailer is reserved up front. */
  const put = async (piece: string): Promise<boolean> => {
    const bytes = Buffer.byteLength(piece);
    if (written + bytes > targetBytes) return false;
    buffered.push(piece);
    bufferedBytes += bytes;
    written += bytes;
    if (bufferedBytes >= MB) await flush();
    return true;
  };
  let recordSeed = seed * 1000;
  const prose = (low: number, high: number) => generateProse(recordSeed++, low, high);
  const words = (count: number) => prose(count * 6, count * 9).split(/\s+/).slice(0, count).join(" ");
  const unicode = (text: string) => text.replace(/'/g, "\u2019").replace(/, /g, " \u2014 ").replace(/\?/g, "?\u201d");
  const records: Record<Exclude<CaseName, "pdf">, { head: string; tail: string; next: (index: number) => string }> = {
    text: { head: "", tail: "", next: () => `${prose(800, 4000)}\n\n` },
    "text-unicode": { head: "", tail: "", next: () => `${unicode(prose(800, 4000))}\n\n` },
    markdown: {
      head: "# Operations handbook\n\n",
      tail: "",
      next: (index) => {
        const roll = random();
        if (roll < 0.15) return `## ${words(5)}\n\n`;
        if (roll < 0.3) return `${Array.from({ length: 4 }, () => `- ${words(10)}`).join("\n")}\n\n`;
        if (roll < 0.35) return `\`\`\`ts\nconst value${index} = await client.send(command);\nreturn value${index};\n\`\`\`\n\n`;
        return `${prose(400, 2000)}\n\n`;
      },
    },
    html: {
      head: "<!doctype html><html><head><title>Operations handbook</title></head><body>\n",
      tail: "</body></html>\n",
      next: (index) => {
        const roll = random();
        if (roll < 0.15) return `<h2 id="s${index}">${words(5)}</h2>\n`;
        if (roll < 0.3) return `<ul>${Array.from({ length: 4 }, () => `<li>${words(10)}</li>`).join("")}</ul>\n`;
        if (roll < 0.4) {
          const rows = Array.from({ length: 5 }, (_, row) => `<tr><td>${words(2)}</td><td>${index * 10 + row}</td><td><a href="/d/${row}">${words(3)}</a></td></tr>`);
          return `<table><tr><th>Name</th><th>Value</th><th>Link</th></tr>${rows.join("")}</table>\n`;
        }
        return `<p>${prose(400, 2000).replace(/\n\n/g, "</p><p>")}</p>\n`;
      },
    },
    json: {
      head: "[\n",
      tail: "\n]\n",
      next: (index) => `${index === 0 ? "" : ",\n"}${JSON.stringify({ id: index, title: words(6), body: prose(300, 1500), tags: [words(1), words(1)], score: random() })}`,
    },
    jsonl: {
      head: "",
      tail: "",
      next: (index) => `${JSON.stringify({ id: index, title: words(6), body: prose(300, 1500), tags: [words(1), words(1)], score: random() })}\n`,
    },
    csv: {
      head: "id,title,body,region,amount\n",
      tail: "",
      next: (index) => `${index},"${words(6)}","${prose(200, 800).replace(/"/g, '""').replace(/\n\n/g, " ")}",${words(1)},${(random() * 1000).toFixed(2)}\n`,
    },
    tsv: {
      head: "id\ttitle\tbody\tregion\tamount\n",
      tail: "",
      next: (index) => `${index}\t${words(6)}\t${prose(200, 800).replace(/\s+/g, " ")}\t${words(1)}\t${(random() * 1000).toFixed(2)}\n`,
    },
  };
  const { head, tail, next } = records[name];
  const budget = targetBytes - Buffer.byteLength(tail);
  await put(head);
  for (let index = 0; ; index++) {
    const piece = next(index);
    if (written + Buffer.byteLength(piece) > budget) break;
    await put(piece);
  }
  buffered.push(tail);
  written += Buffer.byteLength(tail);
  await flush();
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return written;
}

/** The presigned PUT, streamed from disk: the URL signs Content-Length, so no chunked encoding. */
function putFile(url: string, path: string, contentType: string): Promise<void> {
  const size = statSync(path).size;
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: "PUT", headers: { "content-type": contentType, "content-length": size } }, (response) => {
      response.resume();
      response.on("end", () => (response.statusCode === 200 ? resolve() : reject(new Error(`upload answered ${response.statusCode}`))));
    });
    request.on("error", reject);
    createReadStream(path).pipe(request);
  });
}

/**
 * An S3 Vectors endpoint that accepts every request and keeps nothing: the ingest worker only
 * writes vectors (and deletes a retired generation's), so `{}` is a valid answer to all it sends.
 */
async function startVectorSink(): Promise<{ endpoint: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    requests += 1;
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface ChildSpec {
  jobId: string;
  queueUrl: string;
  queueArn: string;
  resultFile: string;
  timeoutMs: number;
}

interface ChildResult {
  wallMs: number;
  baselineRssMb: number;
  peakRssMb: number;
  sampledPeakRssMb: number;
  batches: number[];
  status: string;
}

/** The worker side: one poller, one invocation at a time, until the job is final. */
async function runChild(spec: ChildSpec): Promise<void> {
  const { getIngestJob } = await import("../functions/shared/db/ingest-jobs.ts");
  const { handler } = await import("../functions/workers/ingest.ts");
  const worker = workerForQueue("ingest")!;
  const sqs = new SQSClient({ endpoint: process.env.AWS_ENDPOINT_URL_SQS, useQueueUrlAsEndpoint: false });
  const baselineRss = process.memoryUsage().rss;
  let sampledPeak = baselineRss;
  const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss)), 20);
  const batches: number[] = [];
  const began = performance.now();
  const poller = startPoller({
    client: sqs,
    queueUrl: spec.queueUrl,
    queueArn: spec.queueArn,
    functionName: worker.id,
    batchSize: worker.batchSize,
    timeoutSeconds: worker.timeoutSeconds,
    concurrency: 1,
    loadHandler: async () => (event, context) => {
      batches.push(event.Records.length);
      return handler(event, context);
    },
  });
  let status = "UNKNOWN";
  const deadline = Date.now() + spec.timeoutMs;
  while (Date.now() < deadline) {
    status = (await getIngestJob(spec.jobId))?.status ?? "GONE";
    if (status === "COMPLETED" || status === "FAILED") break;
    await sleep(250);
  }
  const wallMs = performance.now() - began;
  await poller.stop();
  clearInterval(sampler);
  const result: ChildResult = {
    wallMs,
    baselineRssMb: baselineRss / MB,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    sampledPeakRssMb: sampledPeak / MB,
    batches,
    status,
  };
  const { writeFileSync } = await import("node:fs");
  writeFileSync(spec.resultFile, JSON.stringify(result));
  sqs.destroy();
  process.exit(0);
}

function residentMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/**
 * Runs the worker side in a fresh process. A watchdog stops it above `killMb`: the numbers past
 * that point say nothing more (Lambda would have stopped the function long before) and the machine
 * is shared.
 */
function runChildProcess(spec: ChildSpec, env: NodeJS.ProcessEnv, killMb: number): Promise<{ code: number | null; signal: string | null; stderr: string; killedAtMb: number | null }> {
  return new Promise((resolve) => {
    // The worker's own Node options, as the stack deploys it (lib/node-options.ts).
    const runtimeOptions = nodeOptions(workerForQueue("ingest")!.memoryMb).split(" ").filter((option) => option.startsWith("--max-old-space-size"));
    const child = spawn(process.execPath, [...runtimeOptions, "--import", "tsx", fileURLToPath(import.meta.url), "--child", JSON.stringify(spec)], {
      env,
      stdio: ["ignore", "inherit", "pipe"],
    });
    let stderr = "";
    let killedAtMb: number | null = null;
    child.stderr.on("data", (data: Buffer) => {
      stderr = (stderr + data.toString()).slice(-4000);
    });
    const watchdog = setInterval(() => {
      const rss = child.pid === undefined ? 0 : residentMb(child.pid);
      if (rss > killMb && killedAtMb === null) {
        killedAtMb = rss;
        child.kill("SIGKILL");
      }
    }, 50);
    child.on("exit", (code, signal) => {
      clearInterval(watchdog);
      resolve({ code, signal, stderr, killedAtMb });
    });
  });
}

/** SHA-256 over the chunk texts of each published chunks file, in order. */
async function chunksDigest(api: BenchApi, base: string, documentIds: string[]): Promise<string> {
  const hash = createHash("sha256");
  for (const documentId of documentIds) {
    const target = await api.expect(200, "POST", `${base}/documents/${documentId}/chunks-download-url`);
    const file = (await (await fetch(target.body.data.url)).json()) as { chunks: { text: string }[] };
    for (const chunk of file.chunks) hash.update(chunk.text).update("\u0000");
    hash.update("\u0001");
  }
  return hash.digest("hex");
}

async function runCase(
  api: BenchApi,
  name: CaseName | "batch",
  documents: number,
  sizeBytes: number,
  context: { directory: string; env: NodeJS.ProcessEnv; queueUrl: string; queueArn: string; killMb: number; vectorRequests: () => number; log: (line: string) => void },
): Promise<CaseResult> {
  const format: CaseName = name === "batch" ? "text" : name;
  const { extension, contentType } = FILES[format];
  const namespaceId = await createNamespace(api, `large-${name}`);
  const base = `/v1/namespace/${namespaceId}`;
  const items: { type: "MANAGED_FILE"; key: string; fileName: string }[] = [];
  let fileBytes = 0;
  for (let index = 0; index < documents; index++) {
    const path = join(context.directory, `${name}-${index}.${extension}`);
    fileBytes = format === "pdf" ? await writePdf(path) : await writeCorpus(format, path, sizeBytes, 7 + index);
    const fileName = `${name}-${index}.${extension}`;
    const target = await api.expect(201, "POST", `${base}/uploads`, { fileName, contentType, fileSize: fileBytes });
    await putFile(target.body.data.url, path, contentType);
    rmSync(path);
    items.push({ type: "MANAGED_FILE", key: target.body.data.key, fileName });
  }
  const payload = documents === 1 ? items[0] : { type: "BATCH", items };
  const job = await api.expect(201, "POST", `${base}/ingest-jobs`, { payload });
  context.log(`${name}: ${documents} × ${(fileBytes / MB).toFixed(1)} MB uploaded, job ${job.body.data.id}`);

  const resultFile = join(context.directory, `${name}.result.json`);
  const spec: ChildSpec = { jobId: job.body.data.id, queueUrl: context.queueUrl, queueArn: context.queueArn, resultFile, timeoutMs: 30 * 60_000 };
  const requestsBefore = context.vectorRequests();
  const env = format === "pdf" ? { ...context.env, INGEST_STEP_MAX_PAGES: String(PDF_PAGES_PER_STEP) } : context.env;
  const exit = await runChildProcess(spec, env, context.killMb);
  let child: ChildResult | null = null;
  try {
    child = JSON.parse(readFileSync(resultFile, "utf8")) as ChildResult;
  } catch {
    child = null;
  }
  const docs = await api.expect(200, "GET", `${base}/documents?ingestJobId=${job.body.data.id}&perPage=100`);
  const records = docs.body.data as { id: string; status: string; error: string | null; totalChunks: number | null; totalCharacters: number | null; createdAt: string }[];
  records.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const failed = records.find((record) => record.status !== "COMPLETED");
  const digest = !failed && records.length > 0 ? await chunksDigest(api, base, records.map((record) => record.id)) : null;
  const result: CaseResult = {
    case: name,
    format,
    documents,
    fileBytes,
    wallSeconds: child ? child.wallMs / 1000 : Number.NaN,
    status: failed?.status ?? records[0]?.status ?? "NONE",
    error: failed?.error ?? null,
    totalChunks: records.reduce((sum, record) => sum + (record.totalChunks ?? 0), 0) || null,
    totalCharacters: records.reduce((sum, record) => sum + (record.totalCharacters ?? 0), 0) || null,
    baselineRssMb: child?.baselineRssMb ?? Number.NaN,
    peakRssMb: child?.peakRssMb ?? exit.killedAtMb ?? Number.NaN,
    sampledPeakRssMb: child?.sampledPeakRssMb ?? Number.NaN,
    batches: child?.batches ?? [],
    chunksDigest: digest,
    vectorRequests: context.vectorRequests() - requestsBefore,
    crashed: child
      ? null
      : exit.killedAtMb !== null
        ? `stopped at ${exit.killedAtMb.toFixed(0)} MB resident (limit ${context.killMb} MB)`
        : `exit ${exit.code ?? exit.signal}: ${exit.stderr.split("\n").filter(Boolean).slice(-3).join(" | ")}`,
  };
  await deletePrefix(namespacePrefix(namespaceId));
  return result;
}

function markdownTable(report: Omit<LargeFileReport, "markdown">): string {
  const lines = [
    "| case | file MB | documents | status | chunks | worker invocations | wall s | peak RSS MB | baseline RSS MB | chunks digest |",
    "|---|---:|---:|---|---:|---:|---:|---:|---:|---|",
  ];
  for (const result of report.cases) {
    const status = result.crashed ? `crashed (${result.crashed.slice(0, 80)})` : result.error ? `${result.status}: ${result.error.slice(0, 80)}` : result.status;
    lines.push(
      `| ${result.case} | ${(result.fileBytes / MB).toFixed(1)} | ${result.documents} | ${status} | ${result.totalChunks ?? "–"} | ${result.batches.length} | ${result.wallSeconds.toFixed(1)} | ${result.peakRssMb.toFixed(0)} | ${result.baselineRssMb.toFixed(0)} | ${result.chunksDigest?.slice(0, 12) ?? "–"} |`,
    );
  }
  return lines.join("\n");
}

export async function runLargeFileBenchmark(options: LargeFileOptions = {}): Promise<LargeFileReport> {
  const log = options.log ?? console.log;
  const sizeBytes = options.sizeBytes ?? MAX_UPLOAD_BYTES_DEFAULT;
  const cases = options.cases ?? CASES;
  const worker = workerForQueue("ingest")!;
  const run = startRun();
  const directory = mkdtempSync(join(tmpdir(), "kis-large-"));
  const sink = await startVectorSink();
  const stack = await startLocalStack({ workers: false, visibilityTimeoutSeconds: worker.timeoutSeconds * 6 });
  // Ctrl+C must not leave DynamoDB Local running.
  const interrupted = () => void stack.stop().finally(() => process.exit(130));
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    const { key } = await newOrganizationKey(`bench-large-${Date.now()}`);
    const api = benchApi(stack.baseUrl, key);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      VECTOR_STORE_BACKEND: "s3vectors",
      VECTOR_BUCKET_NAME: "bench-vectors",
      AWS_ENDPOINT_URL_S3VECTORS: sink.endpoint,
      MAX_RECEIVE_COUNT: "1",
      ...options.workerEnv,
    };
    const context = { directory, env, queueUrl: stack.resources.queues.ingest.url, queueArn: stack.resources.queues.ingest.arn, killMb: options.killMb ?? 5120, vectorRequests: sink.requests, log };
    const results: CaseResult[] = [];
    for (const name of cases) {
      const result = await runCase(api, name, 1, sizeBytes, context);
      log(`${name}: ${result.status}${result.error ? ` (${result.error})` : ""}${result.crashed ? ` crashed: ${result.crashed}` : ""}, peak RSS ${result.peakRssMb.toFixed(0)} MB, ${result.wallSeconds.toFixed(1)} s`);
      results.push(result);
    }
    if ((options.batch ?? 0) > 0) {
      const result = await runCase(api, "batch", options.batch!, sizeBytes, context);
      log(`batch: ${result.status}${result.crashed ? ` crashed: ${result.crashed}` : ""}, peak RSS ${result.peakRssMb.toFixed(0)} MB, ${result.wallSeconds.toFixed(1)} s, invocations ${result.batches.join(",")}`);
      results.push(result);
    }
    const partial: Omit<LargeFileReport, "markdown"> = {
      benchmark: "large-file",
      ...run.conditions(),
      sizeMb: sizeBytes / MB,
      workerMemoryMb: worker.memoryMb,
      workerBatchSize: worker.batchSize,
      cases: results,
    };
    const report: LargeFileReport = { ...partial, markdown: markdownTable(partial) };
    log(report.markdown);
    saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
    return report;
  } finally {
    await stack.stop();
    await sink.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

if (isEntryPoint(import.meta.url)) {
  const childSpec = argument("child");
  if (childSpec !== undefined) {
    await runChild(JSON.parse(childSpec) as ChildSpec);
  } else {
    const formats = argument("formats");
    const unknown = formats?.split(",").filter((name) => !(CASES as readonly string[]).includes(name)) ?? [];
    if (unknown.length > 0) {
      console.error(`unknown case(s) ${unknown.join(", ")}; choose from ${CASES.join(", ")}`);
      process.exit(2);
    }
    await runLargeFileBenchmark({
      cases: formats ? (formats.split(",") as CaseName[]) : undefined,
      sizeBytes: argument("size-mb") ? Math.round(Number(argument("size-mb")) * MB) : undefined,
      batch: numberArgument("batch") ?? 0,
      killMb: numberArgument("kill-mb"),
      resultsFile: argument("results"),
    });
  }
}
