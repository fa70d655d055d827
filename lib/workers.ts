import type { Stage } from "./config.ts";
import type { FunctionAccess, QueueName } from "./routes.ts";

/**
 * Work queues and the workers subscribed to them. Pure data, read by the CDK stack and by the local
 * stack's pollers, which reproduce the event source mapping (batches, partial batch failures,
 * visibility timeout, redrive to the dead-letter queue).
 */
export interface QueueDefinition {
  name: QueueName;
  /** Deliveries before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
}

export interface WorkerDefinition {
  id: string;
  entry: string;
  queue: QueueName;
  batchSize: number;
  timeoutSeconds: number;
  memoryMb: number;
  /**
   * Invocations the event source mapping runs at once (its maximum concurrency, 2 to 1,000), per
   * stage; the local stack's pollers run the dev value. Bounds what the worker asks of its providers.
   */
  maxConcurrency: Record<Stage, number>;
  access: FunctionAccess;
  /** Reads uploaded documents: bundled with code splitting and the OCR runtime (AppFunction). */
  extractsDocuments?: boolean;
}

export const QUEUES: Record<QueueName, QueueDefinition> = {
  ingest: { name: "ingest", maxReceiveCount: 5 },
  delete: { name: "delete", maxReceiveCount: 5 },
  // A sign-in mail that failed three times is not worth sending later: the visitor asks again.
  mail: { name: "mail", maxReceiveCount: 3 },
};

export const WORKERS: WorkerDefinition[] = [
  {
    id: "IngestWorker",
    entry: "functions/workers/ingest.ts",
    queue: "ingest",
    batchSize: 5,
    // Long documents continue in a follow-up message a minute before this limit (process-document.ts),
    // and the 30-minute visibility timeout it implies keeps retries of a failed step reasonably prompt.
    timeoutSeconds: 300,
    // 1,769 MB is one full vCPU: parsing, chunking and hashing are CPU-bound.
    memoryMb: 1769,
    // Each invocation handles up to 5 documents at once and each embeds with up to 8 requests in
    // flight (Titan takes one text per call): 10 invocations stay near 400 concurrent Bedrock calls,
    // under the default on-demand quotas; throttling beyond that is retried, not failed.
    maxConcurrency: { dev: 2, prod: 10 },
    access: { table: "readWrite", bucket: "readWrite", queues: ["ingest"], vectors: ["write", "read", "delete"], embeds: true },
    extractsDocuments: true,
  },
  {
    id: "DeleteWorker",
    entry: "functions/workers/delete.ts",
    queue: "delete",
    batchSize: 5,
    timeoutSeconds: 300,
    memoryMb: 512,
    // Deletions write to the same table and vector indexes as ingestion; a few at once drain a
    // namespace's fan-out without starving it.
    maxConcurrency: { dev: 2, prod: 5 },
    access: { table: "readWrite", bucket: "readWrite", queues: ["delete"], vectors: ["delete", "list"] },
  },
  {
    id: "MailWorker",
    entry: "functions/workers/mail.ts",
    queue: "mail",
    batchSize: 10,
    timeoutSeconds: 30,
    memoryMb: 256,
    // Sign-in mails are few; two at once keeps SES's per-second sending quota far away.
    maxConcurrency: { dev: 2, prod: 2 },
    // Reads the page, writes its pending links, tokens and mail counters; sends from the stack's SES identity.
    access: { table: "readWrite", writesOnly: ["signIn", "rateWindow"], sendsEmail: true },
  },
];

/** A function that an EventBridge schedule invokes; in local mode it is run on demand instead. */
export interface ScheduledFunctionDefinition {
  id: string;
  entry: string;
  /** Minutes between two runs. */
  rateMinutes: number;
  timeoutSeconds: number;
  memoryMb: number;
  access: FunctionAccess;
}

export const SCHEDULED_FUNCTIONS: ScheduledFunctionDefinition[] = [
  {
    id: "Reconciler",
    entry: "functions/workers/reconcile.ts",
    // Its grace periods and stuck-record threshold are far longer than a run is apart; hourly keeps
    // a stuck record's wait near its 15-minute threshold plus an hour at most.
    rateMinutes: 60,
    // The Lambda maximum: a run stops starting pages a minute before it and the next run starts over.
    timeoutSeconds: 900,
    memoryMb: 1024,
    // Reads every record kind, deletes orphaned objects and vectors, re-queues stuck work on both queues.
    access: { table: "readWrite", tableScan: true, bucket: "readWrite", queues: ["delete", "ingest"], vectors: ["delete", "list"] },
  },
];

/** AWS recommends a visibility timeout of at least six times the function timeout. */
export function visibilityTimeoutSeconds(worker: WorkerDefinition): number {
  return worker.timeoutSeconds * 6;
}

export function workerForQueue(queue: QueueName): WorkerDefinition | undefined {
  return WORKERS.find((worker) => worker.queue === queue);
}
