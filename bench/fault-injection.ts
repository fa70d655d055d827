import { fileURLToPath } from "node:url";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { dynamo } from "../functions/shared/db/dynamo/client.ts";
import { sqs } from "../functions/shared/queue/client.ts";
import { getIngestJob } from "../functions/shared/db/ingest-jobs.ts";
import { ensureOrganization, issueApiKey } from "../functions/shared/db/organizations.ts";
import type { DocumentRecord } from "../functions/shared/domain/document.ts";
import type { IngestJobRecord } from "../functions/shared/domain/ingest-job.ts";
import { setFaultInjector } from "../functions/shared/platform/fault-points.ts";
import { parseVectorKey } from "../functions/shared/domain/chunks.ts";
import { logger } from "../functions/shared/platform/logger.ts";
import { reconcile, type ReconcileReport } from "../functions/shared/workflows/maintenance/run-reconciliation.ts";
import { totalRepairs } from "../functions/shared/workflows/maintenance/report.ts";
import { embeddedVectorStore } from "../functions/shared/vector-store/embedded.ts";
import { type LocalStack, startLocalStack } from "../local/stack.ts";
import { isEntryPoint, seededRandom, saveResults, startRun, type RunConditions } from "./support.ts";

/**
 * The fault-injection run: the local stack with a one-second visibility timeout and small
 * ingestion steps, a seeded injector that kills the worker at a random fault point with some
 * probability, 100 jobs of mixed kinds, deletions and re-ingestions fired at random moments, and
 * then an inventory of the table, the bucket and the vector store that an orphan or a stuck record
 * cannot hide from. The reconciler runs once in between and reports what it still had to repair.
 */

export interface FaultInjectionOptions {
  jobs?: number;
  seed?: number;
  /** Chance that reaching a worker fault point kills the worker there. */
  crashProbability?: number;
  jobDeletions?: number;
  documentDeletions?: number;
  reingestions?: number;
  /** Deletions and re-ingestions are fired at random moments within this window from the first job. */
  actionWindowMs?: number;
  /** Give up waiting for final states after this long (and report what was still working). */
  settleTimeoutMs?: number;
  resultsFile?: string | null;
  log?: (line: string) => void;
}

const DEFAULTS = {
  jobs: 100,
  seed: 20_261_121,
  crashProbability: 0.15,
  jobDeletions: 30,
  documentDeletions: 15,
  reingestions: 20,
  actionWindowMs: 25_000,
  settleTimeoutMs: 10 * 60_000,
};

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/fault-injection.json", import.meta.url));
const WORKER_FAULT_POINT = /^(job|document|delete):/;
const TENANTS = [null, null, "acme", "globex"] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Api {
  call(method: string, path: string, options?: { body?: unknown; tenant?: string | null }): Promise<{ status: number; body: any }>;
}

function apiClient(stack: LocalStack, key: string, namespaceId: string | null): Api {
  return {
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (options.body !== undefined) headers["content-type"] = "application/json";
      if (options.tenant) headers["x-tenant-id"] = options.tenant;
      const base = namespaceId ? `${stack.baseUrl}/v1/namespace/${namespaceId}` : `${stack.baseUrl}/v1/namespace`;
      const response = await fetch(base + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON: kept as text for the error message.
      }
      return { status: response.status, body };
    },
  };
}

function expectStatus(response: { status: number; body: unknown }, status: number, what: string): any {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  return (response.body as { data: unknown }).data;
}

function paragraphs(random: () => number, count: number, topic: string): string {
  const words = ["storage", "vectors", "retrieval", "queues", "tables", "chunks", "tenants", "embeddings", "failures", "retries"];
  return Array.from({ length: count }, (_, index) => {
    const word = words[Math.floor(random() * words.length)];
    return `Paragraph ${index} of ${topic} discusses ${word} in some detail, with a sentence or two more.\n\n`;
  }).join("");
}

interface PlannedJob {
  kind: "TEXT" | "BATCH" | "MANAGED_FILE";
  tenant: string | null;
  /** Items: TEXT carries its text, MANAGED_FILE the content to upload first. */
  items: { type: "TEXT" | "MANAGED_FILE"; content: string; fileName: string }[];
  chunkSize: number;
}

function planJobs(random: () => number, count: number): PlannedJob[] {
  return Array.from({ length: count }, (_, index) => {
    const roll = random();
    const kind: PlannedJob["kind"] = roll < 0.4 ? "TEXT" : roll < 0.75 ? "BATCH" : "MANAGED_FILE";
    const tenant = TENANTS[Math.floor(random() * TENANTS.length)] ?? null;
    const item = (type: "TEXT" | "MANAGED_FILE", n: number) => {
      // A few sources are larger than the table keeps inline, so stored texts and payloads are exercised too.
      const large = type === "TEXT" && random() < 0.05;
      const body = large ? paragraphs(random, 800, `job ${index}`) : paragraphs(random, 3 + Math.floor(random() * 40), `job ${index}`);
      return { type, content: type === "MANAGED_FILE" ? `# Job ${index} file ${n}\n\n${body}` : body, fileName: `job-${index}-${n}.md` };
    };
    const items =
      kind === "TEXT"
        ? [item("TEXT", 0)]
        : kind === "MANAGED_FILE"
          ? [item("MANAGED_FILE", 0)]
          : Array.from({ length: 2 + Math.floor(random() * 2) }, (_, n) => item(random() < 0.5 ? "TEXT" : "MANAGED_FILE", n));
    return { kind, tenant, items, chunkSize: 200 + Math.floor(random() * 300) };
  });
}

async function uploadFile(api: Api, fileName: string, content: string, tenant: string | null): Promise<string> {
  const bytes = Buffer.from(content);
  const target = expectStatus(
    await api.call("POST", "/uploads", { body: { fileName, contentType: "text/markdown", fileSize: bytes.byteLength }, tenant }),
    201,
    "upload target",
  );
  const put = await fetch(target.url, { method: "PUT", headers: { "content-type": "text/markdown" }, body: bytes });
  if (put.status !== 200) throw new Error(`upload PUT: ${put.status}`);
  return target.key as string;
}

interface CreatedJob {
  id: string;
  tenant: string | null;
  kind: PlannedJob["kind"];
  uploads: string[];
}

async function createJob(api: Api, plan: PlannedJob): Promise<CreatedJob> {
  const uploads: string[] = [];
  const payloadItems = [];
  for (const item of plan.items) {
    if (item.type === "TEXT") {
      payloadItems.push({ type: "TEXT", text: item.content, fileName: item.fileName });
    } else {
      const key = await uploadFile(api, item.fileName, item.content, plan.tenant);
      uploads.push(key);
      payloadItems.push({ type: "MANAGED_FILE", key });
    }
  }
  const payload = plan.kind === "BATCH" ? { type: "BATCH", items: payloadItems } : payloadItems[0];
  const job = expectStatus(
    await api.call("POST", "/ingest-jobs", { body: { payload, config: { chunkSize: plan.chunkSize } }, tenant: plan.tenant }),
    201,
    "create ingest job",
  );
  return { id: job.id, tenant: plan.tenant, kind: plan.kind, uploads };
}

type ActionKind = "deleteJob" | "deleteDocument" | "reingest";

interface ActionTally {
  attempted: number;
  byStatus: Record<string, number>;
}

interface Chaos {
  deletedJobs: Set<string>;
  deletedDocuments: Set<string>;
  tallies: Record<ActionKind, ActionTally>;
  /** Deletions requested again because their own retries all crashed and they ended FAILED. */
  deletionRetries: number;
}

async function runAction(api: Api, kind: ActionKind, jobs: CreatedJob[], chaos: Chaos, random: () => number): Promise<void> {
  const candidates = jobs.filter((job) => !chaos.deletedJobs.has(job.id));
  const job = candidates[Math.floor(random() * candidates.length)];
  if (!job) return;
  const tally = chaos.tallies[kind];
  tally.attempted += 1;
  let status: number;
  if (kind === "deleteJob") {
    status = (await api.call("DELETE", `/ingest-jobs/${job.id}`)).status;
    if (status === 200) chaos.deletedJobs.add(job.id);
  } else if (kind === "reingest") {
    status = (await api.call("POST", `/ingest-jobs/${job.id}/re-ingest`)).status;
  } else {
    const record = await getIngestJob(job.id);
    const documentId = record?.documentIds[Math.floor(random() * record.documentIds.length)];
    if (!documentId) {
      status = 404;
    } else {
      status = (await api.call("DELETE", `/documents/${documentId}`)).status;
      if (status === 200) chaos.deletedDocuments.add(documentId);
    }
  }
  tally.byStatus[status] = (tally.byStatus[status] ?? 0) + 1;
}

function planActions(random: () => number, options: Required<Omit<FaultInjectionOptions, "resultsFile" | "log">>): { kind: ActionKind; atMs: number }[] {
  const actions: { kind: ActionKind; atMs: number }[] = [];
  const add = (kind: ActionKind, count: number) => {
    for (let i = 0; i < count; i += 1) actions.push({ kind, atMs: Math.floor(random() * options.actionWindowMs) });
  };
  add("deleteJob", options.jobDeletions);
  add("deleteDocument", options.documentDeletions);
  add("reingest", options.reingestions);
  return actions.sort((a, b) => a.atMs - b.atMs);
}

interface WorkerTally {
  failedDeliveries: number;
  lastAttemptFailures: number;
  documentsFailed: number;
  jobsFailed: number;
  otherWarnings: number;
}

/** Counts the workers' warnings instead of printing hundreds of expected crash reports. */
function tallyWarnings(): { tally: WorkerTally; restore: () => void } {
  const tally: WorkerTally = { failedDeliveries: 0, lastAttemptFailures: 0, documentsFailed: 0, jobsFailed: 0, otherWarnings: 0 };
  const original = logger.warn.bind(logger);
  logger.warn = ((message: unknown, ...extra: unknown[]) => {
    const attributes = (extra[0] ?? {}) as { lastAttempt?: boolean };
    if (message === "work message failed") {
      tally.failedDeliveries += 1;
      if (attributes.lastAttempt) tally.lastAttemptFailures += 1;
    } else if (message === "document failed") tally.documentsFailed += 1;
    else if (message === "ingest job failed") tally.jobsFailed += 1;
    else tally.otherWarnings += 1;
  }) as typeof logger.warn;
  return { tally, restore: () => (logger.warn = original) };
}

async function queueDepth(stack: LocalStack, url: string): Promise<number> {
  const result = await stack.clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"] }),
  );
  const attributes = result.Attributes ?? {};
  return (
    Number(attributes.ApproximateNumberOfMessages ?? 0) +
    Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(attributes.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}

async function deadLetters(stack: LocalStack): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [name, queue] of Object.entries(stack.resources.queues)) counts[name] = await queueDepth(stack, queue.dlqUrl);
  return counts;
}

interface MessageTally {
  sent: Record<string, number>;
  /** Copies left by deliveries that stepped aside for another delivery of the same run. */
  delayed: number;
}

/** Counts the work messages the service sends, by queue, through its own SQS client. */
function tallyMessages(stack: LocalStack): MessageTally {
  const tally: MessageTally = { sent: {}, delayed: 0 };
  const queueOf = (url: unknown) => Object.entries(stack.resources.queues).find(([, queue]) => queue.url === url)?.[0] ?? "other";
  sqs().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { QueueUrl?: string; DelaySeconds?: number; Entries?: unknown[]; MessageBody?: string };
      if (input.QueueUrl && (input.MessageBody !== undefined || input.Entries)) {
        const queue = queueOf(input.QueueUrl);
        tally.sent[queue] = (tally.sent[queue] ?? 0) + (input.Entries?.length ?? 1);
        if (input.DelaySeconds) tally.delayed += 1;
      }
      return next(args);
    },
    { step: "initialize", name: "faultInjectionTally" },
  );
  return tally;
}

/** Waits until both work queues have been empty for a few seconds in a row. */
async function waitForQuietQueues(stack: LocalStack, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let quietChecks = 0;
  while (Date.now() < deadline) {
    const depth = (await queueDepth(stack, stack.resources.queues.ingest.url)) + (await queueDepth(stack, stack.resources.queues.delete.url));
    quietChecks = depth === 0 ? quietChecks + 1 : 0;
    if (quietChecks >= 4) return true;
    await sleep(750);
  }
  return false;
}

interface TableContents {
  namespaces: Set<string>;
  jobs: Map<string, IngestJobRecord>;
  documents: Map<string, DocumentRecord>;
  uploadReferences: { key: string; documentId: string }[];
}

async function readTable(tableName: string): Promise<TableContents> {
  const contents: TableContents = { namespaces: new Set(), jobs: new Map(), documents: new Map(), uploadReferences: [] };
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey, ConsistentRead: true }));
    for (const item of page.Items ?? []) {
      if (item.entityType === "Namespace") contents.namespaces.add(item.id as string);
      if (item.entityType === "IngestJob") contents.jobs.set(item.id as string, item as unknown as IngestJobRecord);
      if (item.entityType === "Document") contents.documents.set(item.id as string, item as unknown as DocumentRecord);
      if (item.entityType === "UploadReference") {
        contents.uploadReferences.push({ key: String(item.PK).slice("UPLOAD#".length), documentId: String(item.SK).slice("DOC#".length) });
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return contents;
}

async function listBucket(stack: LocalStack): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await stack.clients.s3.send(new ListObjectsV2Command({ Bucket: stack.resources.bucketName, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : [])));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

export interface InventoryReport {
  jobs: { total: number; byStatus: Record<string, number>; notFinal: string[]; inconsistentCounters: string[]; errors: Record<string, number> };
  documents: { total: number; byStatus: Record<string, number>; notFinal: string[]; errors: Record<string, number> };
  deleted: { jobsRequested: number; documentsRequested: number; jobsStillPresent: string[]; documentsStillPresent: string[] };
  orphanObjects: Record<string, string[]>;
  orphanVectors: Record<string, number>;
  /** A COMPLETED document whose searchable set is short or whose chunks file is missing. */
  incomplete: string[];
  orphanObjectCount: number;
  orphanVectorCount: number;
}

const FINAL = new Set(["COMPLETED", "FAILED"]);

function countBy<T>(items: Iterable<T>, key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/**
 * Everything in the table, the bucket and the vector store, judged independently of the reconciler
 * (the two share nothing but the vector key parser), with every record final and the queues empty.
 */
async function takeInventory(stack: LocalStack, chaos: Chaos, created: CreatedJob[]): Promise<InventoryReport> {
  const table = await readTable(stack.resources.tableName);
  const { jobs, documents } = table;
  const report: InventoryReport = {
    jobs: {
      total: jobs.size,
      byStatus: countBy(jobs.values(), (job) => job.status),
      notFinal: [...jobs.values()].filter((job) => !FINAL.has(job.status)).map((job) => `${job.id} ${job.status}`),
      inconsistentCounters: [...jobs.values()]
        .filter((job) => job.status === "COMPLETED" && (job.documentsCompleted !== job.documentsTotal || job.documentsFailed !== 0))
        .map((job) => `${job.id} ${job.documentsCompleted}/${job.documentsTotal} failed ${job.documentsFailed}`),
      errors: countBy([...jobs.values()].filter((job) => job.error), (job) => job.error!.replace(/\d+ of \d+/, "N of M")),
    },
    documents: {
      total: documents.size,
      byStatus: countBy(documents.values(), (document) => document.status),
      notFinal: [...documents.values()].filter((document) => !FINAL.has(document.status)).map((document) => `${document.id} ${document.status}`),
      errors: countBy([...documents.values()].filter((document) => document.error), (document) => document.error!),
    },
    deleted: {
      jobsRequested: chaos.deletedJobs.size,
      documentsRequested: chaos.deletedDocuments.size,
      jobsStillPresent: [...chaos.deletedJobs].filter((id) => jobs.has(id)).map((id) => `${id} ${jobs.get(id)!.status} ${jobs.get(id)!.error ?? ""}`),
      documentsStillPresent: [...chaos.deletedDocuments]
        .filter((id) => documents.has(id))
        .map((id) => `${id} ${documents.get(id)!.status} ${documents.get(id)!.error ?? ""}`),
    },
    orphanObjects: {
      documentGone: [],
      jobGone: [],
      staging: [],
      unreferencedUpload: [],
      unreferencedUploadOfDeletedJob: [],
      keyword: [],
      failedDocumentChunks: [],
      other: [],
    },
    orphanVectors: { partitionOfMissingNamespace: 0, documentGone: 0, wrongPartition: 0, notCurrentGeneration: 0, beyondGeneration: 0, malformed: 0 },
    incomplete: [],
    orphanObjectCount: 0,
    orphanVectorCount: 0,
  };
  // A deleted job's documents must be gone too.
  for (const jobId of chaos.deletedJobs) {
    for (const document of documents.values()) {
      if (document.ingestJobId === jobId) report.deleted.documentsStillPresent.push(`${document.id} ${document.status} (of deleted job ${jobId})`);
    }
  }
  const referencedUploads = new Set(table.uploadReferences.filter((reference) => documents.has(reference.documentId)).map((reference) => reference.key));
  for (const reference of table.uploadReferences) {
    if (!documents.has(reference.documentId)) report.orphanObjects.other!.push(`upload reference ${reference.key} of missing ${reference.documentId}`);
  }

  const keys = await listBucket(stack);
  const objects = new Set(keys);
  // A job deleted before its documents existed never referenced its uploads: those wait for the
  // reconciler's upload grace period by design, and are told apart from leaks.
  const uploadOfDeletedJob = new Set(created.filter((job) => chaos.deletedJobs.has(job.id)).flatMap((job) => job.uploads));
  for (const key of keys) {
    let verdict = judgeObject(key, table, referencedUploads);
    if (verdict === "unreferencedUpload" && uploadOfDeletedJob.has(key)) verdict = "unreferencedUploadOfDeletedJob";
    if (verdict) report.orphanObjects[verdict]!.push(key);
  }
  for (const document of documents.values()) {
    if (document.status !== "COMPLETED") continue;
    if (!objects.has(`namespaces/${document.namespaceId}/documents/${document.id}/chunks.json`)) report.incomplete.push(`${document.id}: chunks file missing`);
  }

  const vectorsOf = new Map<string, number>();
  const store = embeddedVectorStore();
  for (const partition of await store.listAllPartitions()) {
    for await (const page of store.listKeys(partition)) {
      for (const key of page) {
        if (!table.namespaces.has(partition.namespaceId)) {
          report.orphanVectors.partitionOfMissingNamespace! += 1;
          continue;
        }
        const verdict = judgeVector(key, partition, documents);
        if (verdict) report.orphanVectors[verdict]! += 1;
        else vectorsOf.set(parseVectorKey(key)!.documentId, (vectorsOf.get(parseVectorKey(key)!.documentId) ?? 0) + 1);
      }
    }
  }
  for (const document of documents.values()) {
    const expected = document.status === "COMPLETED" ? (document.generation?.totalChunks ?? -1) : 0;
    const found = vectorsOf.get(document.id) ?? 0;
    if (found !== expected) report.incomplete.push(`${document.id} ${document.status}: ${found} vectors, expected ${expected}`);
  }
  report.orphanObjectCount = Object.values(report.orphanObjects).reduce((sum, list) => sum + list.length, 0);
  report.orphanVectorCount = Object.values(report.orphanVectors).reduce((sum, count) => sum + count, 0);
  return report;
}

/** With every record final and the queues empty, anything not owned by a live record is an orphan. */
function judgeObject(key: string, table: TableContents, referencedUploads: Set<string>): string | null {
  const [root, namespaceId, area, id, second, third] = key.split("/");
  if (root !== "namespaces" || !namespaceId || !table.namespaces.has(namespaceId)) return "other";
  if (area === "uploads") return referencedUploads.has(key) ? null : "unreferencedUpload";
  if (area === "jobs") return table.jobs.get(id ?? "")?.namespaceId === namespaceId ? null : "jobGone";
  if (area === "documents") {
    const document = table.documents.get(id ?? "");
    if (!document || document.namespaceId !== namespaceId) return "documentGone";
    if (second === "runs") return "staging";
    if (second === "chunks.json" && document.status !== "COMPLETED") return "failedDocumentChunks";
    return null;
  }
  if (area === "keyword") {
    // keyword/<partition>/<documentId>/<runId>.json
    const document = table.documents.get(second ?? "");
    if (!document || document.namespaceId !== namespaceId) return "keyword";
    return document.status === "COMPLETED" && third === `${document.generation?.runId}.json` ? null : "keyword";
  }
  return "other";
}

function judgeVector(
  key: string,
  partition: { namespaceId: string; tenantId: string | null },
  documents: Map<string, DocumentRecord>,
): keyof InventoryReport["orphanVectors"] | null {
  const parsed = parseVectorKey(key);
  if (!parsed) return "malformed";
  const document = documents.get(parsed.documentId);
  if (!document) return "documentGone";
  if (document.namespaceId !== partition.namespaceId || document.tenantId !== partition.tenantId) return "wrongPartition";
  if (document.status !== "COMPLETED" || document.generation?.runId !== parsed.runId) return "notCurrentGeneration";
  return parsed.sequence >= document.generation.totalChunks ? "beyondGeneration" : null;
}

export interface FaultInjectionReport extends RunConditions {
  benchmark: "fault-injection";
  settings: Required<Omit<FaultInjectionOptions, "resultsFile" | "log">> & { visibilityTimeoutSeconds: number; maxReceiveCount: number; ingestStepMaxChunks: number };
  jobsCreated: { total: number; byKind: Record<string, number>; documents: number; uploads: number };
  crashes: { total: number; byPoint: Record<string, number> };
  workers: WorkerTally;
  messages: MessageTally;
  actions: Record<ActionKind, ActionTally>;
  deletionRetries: number;
  deadLetters: Record<string, number>;
  settled: boolean;
  beforeReconcile: InventoryReport;
  reconcile: ReconcileReport;
  reconcilerRepairs: number;
  afterReconcile: InventoryReport;
  passed: boolean;
  wallTimeMs: number;
  phasesMs: Record<string, number>;
  markdown: string;
}

export async function runFaultInjectionBench(options: FaultInjectionOptions = {}): Promise<FaultInjectionReport> {
  const run = startRun();
  const settings = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) } as FaultInjectionReport["settings"];
  const log = options.log ?? ((line: string) => console.log(line));
  const began = Date.now();
  const phases: Record<string, number> = {};
  const phase = (name: string, since: number) => (phases[name] = Date.now() - since);
  const stackSettings = { visibilityTimeoutSeconds: 1, maxReceiveCount: 5, ingestStepMaxChunks: 5 };
  Object.assign(settings, stackSettings);

  const stack = await startLocalStack({
    visibilityTimeoutSeconds: stackSettings.visibilityTimeoutSeconds,
    maxReceiveCount: stackSettings.maxReceiveCount,
    workerConcurrency: 4,
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    env: { INGEST_STEP_MAX_CHUNKS: String(stackSettings.ingestStepMaxChunks) },
  });
  const warnings = tallyWarnings();
  const messages = tallyMessages(stack);
  try {
    const { organization } = await ensureOrganization(`fault-injection-${Date.now()}`);
    const { key } = await issueApiKey(organization, "bench");
    const namespace = expectStatus(
      await apiClient(stack, key, null).call("POST", "", { body: { name: "Fault injection", slug: `faults-${Date.now()}` } }),
      201,
      "create namespace",
    );
    const api = apiClient(stack, key, namespace.id);

    const crashes: Record<string, number> = {};
    const faultRandom = seededRandom(settings.seed ^ 0x5eed);
    let faultsOn = true;
    setFaultInjector((point) => {
      if (!faultsOn || !WORKER_FAULT_POINT.test(point) || faultRandom() >= settings.crashProbability) return;
      crashes[point] = (crashes[point] ?? 0) + 1;
      throw new Error(`injected crash at ${point}`);
    });

    const workloadRandom = seededRandom(settings.seed);
    const plans = planJobs(workloadRandom, settings.jobs);
    const actions = planActions(workloadRandom, settings);
    const chaos: Chaos = {
      deletedJobs: new Set(),
      deletedDocuments: new Set(),
      tallies: { deleteJob: { attempted: 0, byStatus: {} }, deleteDocument: { attempted: 0, byStatus: {} }, reingest: { attempted: 0, byStatus: {} } },
      deletionRetries: 0,
    };
    const created: CreatedJob[] = [];

    log(`fault injection: ${settings.jobs} jobs, crash probability ${settings.crashProbability}, seed ${settings.seed}`);
    const workStarted = Date.now();
    const creating = (async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          while (next < plans.length) {
            const plan = plans[next++]!;
            created.push(await createJob(api, plan));
          }
        }),
      );
    })();
    const actionRandom = seededRandom(settings.seed ^ 0xac7);
    const acting = Promise.all(
      actions.map(async (action) => {
        await sleep(action.atMs);
        while (created.length === 0) await sleep(50);
        await runAction(api, action.kind, created, chaos, actionRandom);
      }),
    );
    await creating;
    phase("createJobs", workStarted);
    log(`created ${created.length} jobs in ${phases.createJobs} ms; deletions and re-ingestions under way`);
    await acting;

    const settled = await waitForSettled(stack, created, chaos, api, settings.settleTimeoutMs, log);
    phase("settle", workStarted);
    faultsOn = false;
    // Deliveries that stepped aside left copies delayed by a minute; they drain too.
    await waitForQuietQueues(stack, 180_000);
    log(`settled=${settled} after ${phases.settle} ms; ${Object.values(crashes).reduce((sum, n) => sum + n, 0)} crashes injected`);

    const beforeReconcile = await takeInventory(stack, chaos, created);
    const reconcileStarted = Date.now();
    // With every job final and the queues empty no grace period protects live work, so the
    // reconciler sees exactly what the workers left behind. If something is still stuck, uploads
    // keep their grace: a stuck job's documents (and their upload references) may not exist yet.
    const reconcileReport = await reconcile({ staleAfterMs: 0, graceMs: 0, uploadGraceMs: settled ? 0 : undefined });
    phase("reconcile", reconcileStarted);
    await waitForQuietQueues(stack, 180_000);
    await waitForSettled(stack, created, chaos, api, 180_000, log);
    await waitForQuietQueues(stack, 180_000);
    const afterReconcile = await takeInventory(stack, chaos, created);

    const passed =
      afterReconcile.orphanObjectCount === 0 &&
      afterReconcile.orphanVectorCount === 0 &&
      afterReconcile.incomplete.length === 0 &&
      afterReconcile.jobs.notFinal.length === 0 &&
      afterReconcile.documents.notFinal.length === 0 &&
      afterReconcile.deleted.jobsStillPresent.length === 0 &&
      afterReconcile.deleted.documentsStillPresent.length === 0;
    const report: FaultInjectionReport = {
      benchmark: "fault-injection",
      ...run.conditions(),
      settings,
      jobsCreated: {
        total: created.length,
        byKind: countBy(created, (job) => job.kind),
        documents: plans.reduce((sum, plan) => sum + plan.items.length, 0),
        uploads: created.reduce((sum, job) => sum + job.uploads.length, 0),
      },
      crashes: { total: Object.values(crashes).reduce((sum, n) => sum + n, 0), byPoint: sortedCounts(crashes) },
      workers: { ...warnings.tally },
      messages,
      actions: chaos.tallies,
      deletionRetries: chaos.deletionRetries,
      deadLetters: await deadLetters(stack),
      settled,
      beforeReconcile,
      reconcile: reconcileReport,
      reconcilerRepairs: totalRepairs(reconcileReport),
      afterReconcile,
      passed,
      wallTimeMs: Date.now() - began,
      phasesMs: phases,
      markdown: "",
    };
    report.markdown = renderMarkdown(report);
    log("");
    log(report.markdown);
    saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
    return report;
  } finally {
    setFaultInjector(null);
    warnings.restore();
    sqs().middlewareStack.remove("faultInjectionTally");
    await stack.stop();
  }
}

/**
 * Waits until every job is final or gone and every deleted job and document is gone. A deletion
 * that ended FAILED (its retries all crashed) is requested again, as a user would.
 */
async function waitForSettled(stack: LocalStack, jobs: CreatedJob[], chaos: Chaos, api: Api, timeoutMs: number, log: (line: string) => void): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let lastReport = 0;
  while (Date.now() < deadline) {
    const table = await readTable(stack.resources.tableName);
    let waiting = 0;
    const examples: string[] = [];
    for (const job of jobs) {
      const record = table.jobs.get(job.id);
      if (!record) continue;
      if (chaos.deletedJobs.has(job.id) || !FINAL.has(record.status)) {
        waiting += 1;
        examples.push(`${job.id} ${record.status}${chaos.deletedJobs.has(job.id) ? " (deleted)" : ""}`);
      }
      if (chaos.deletedJobs.has(job.id) && record.status === "FAILED" && record.error?.startsWith("deletion failed")) {
        chaos.deletionRetries += 1;
        await api.call("DELETE", `/ingest-jobs/${job.id}`);
      }
    }
    for (const documentId of chaos.deletedDocuments) {
      const record = table.documents.get(documentId);
      if (!record) continue;
      waiting += 1;
      examples.push(`${documentId} ${record.status} (deleted document)`);
      if (record.status === "FAILED" && record.error?.startsWith("deletion failed")) {
        chaos.deletionRetries += 1;
        await api.call("DELETE", `/documents/${documentId}`);
      }
    }
    if (waiting === 0) return true;
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      log(`  waiting for ${waiting} job(s)/document(s) to settle, e.g. ${examples.slice(0, 4).join("; ")}`);
    }
    await sleep(1000);
  }
  return false;
}

function sortedCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

function renderMarkdown(report: FaultInjectionReport): string {
  const { beforeReconcile: before, afterReconcile: after, reconcile: reconciled } = report;
  const statuses = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([status, count]) => `${status} ${count}`)
      .join(", ") || "none";
  const actions = (tally: ActionTally) =>
    `${tally.attempted} (${Object.entries(tally.byStatus)
      .map(([status, count]) => `${count}× ${status}`)
      .join(", ")})`;
  const lines = [
    `| | |`,
    `|---|---|`,
    `| jobs created | ${report.jobsCreated.total} (${statuses(report.jobsCreated.byKind)}), ${report.jobsCreated.documents} documents, ${report.jobsCreated.uploads} uploads |`,
    `| settings | crash probability ${report.settings.crashProbability} per worker fault point, visibility timeout ${report.settings.visibilityTimeoutSeconds} s, maxReceiveCount ${report.settings.maxReceiveCount}, ${report.settings.ingestStepMaxChunks} chunks per step, seed ${report.settings.seed} |`,
    `| injected crashes | ${report.crashes.total}: ${Object.entries(report.crashes.byPoint).map(([point, count]) => `${point} ${count}`).join(", ")} |`,
    `| failed deliveries (retried) | ${report.workers.failedDeliveries - report.workers.lastAttemptFailures}; last-attempt failures (record FAILED, message to DLQ) ${report.workers.lastAttemptFailures} |`,
    `| work messages sent | ${statuses(report.messages.sent)}; delayed copies from deliveries that stepped aside ${report.messages.delayed} |`,
    `| job deletions | ${actions(report.actions.deleteJob)} |`,
    `| document deletions | ${actions(report.actions.deleteDocument)} |`,
    `| re-ingestions | ${actions(report.actions.reingest)} |`,
    `| deletions requested again after ending FAILED | ${report.deletionRetries} |`,
    `| dead-letter queues at the end | ${statuses(report.deadLetters)} |`,
    `| final jobs | ${statuses(after.jobs.byStatus)} (${after.jobs.total} remain; ${after.deleted.jobsRequested} deleted) |`,
    `| final documents | ${statuses(after.documents.byStatus)} (${after.documents.total} remain; ${after.deleted.documentsRequested} deleted one by one) |`,
    `| orphans before reconciliation | ${before.orphanObjectCount} objects (${statuses(nonZero(Object.fromEntries(Object.entries(before.orphanObjects).map(([kind, keys]) => [kind, keys.length]))))}), ${before.orphanVectorCount} vectors (${statuses(nonZero(before.orphanVectors))}); ${before.jobs.notFinal.length + before.documents.notFinal.length} records not final; ${before.incomplete.length} incomplete documents |`,
    `| reconciler repairs | ${report.reconcilerRepairs}: objects ${reconciled.objects.deleted} (${statuses(pick(reconciled.objects, ["namespaceGone", "documentGone", "jobGone", "staleStaging", "staleKeywordSegment", "unreferencedUpload"]))}), vectors ${reconciled.vectors.deleted} (${statuses(pick(reconciled.vectors, ["documentGone", "wrongPartition", "staleRun", "beyondGeneration", "malformed"]))}), partitions dropped ${reconciled.vectors.partitionsDropped}, records requeued ${statuses(nonZero(reconciled.records.requeued))}, failed ${statuses(nonZero(reconciled.records.failed))} |`,
    `| orphans after reconciliation | ${after.orphanObjectCount} objects, ${after.orphanVectorCount} vectors; ${after.jobs.notFinal.length + after.documents.notFinal.length} records not final; ${after.deleted.jobsStillPresent.length + after.deleted.documentsStillPresent.length} deleted records present; ${after.incomplete.length} incomplete documents |`,
    `| result | ${report.passed ? "PASS" : "FAIL"} |`,
    `| wall time | ${(report.wallTimeMs / 1000).toFixed(1)} s |`,
  ];
  return lines.join("\n");
}

function nonZero(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
}

function pick<T extends object>(counts: T, names: (keyof T)[]): Record<string, number> {
  return Object.fromEntries(names.map((name) => [String(name), counts[name] as number]).filter(([, count]) => (count as number) > 0));
}

if (isEntryPoint(import.meta.url)) {
  const report = await runFaultInjectionBench();
  process.exit(report.passed ? 0 : 1);
}
