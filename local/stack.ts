import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { ENV } from "../functions/shared/platform/env-names.ts";
import { QUEUES, WORKERS } from "../lib/workers.ts";
import { startDynamoDbLocal } from "./dynamodb-local.ts";
import { type Emulator, startEmulator } from "./emulator.ts";
import { type GatewayOptions, startGateway } from "./gateway.ts";
import { createResources, type LocalResources } from "./resources.ts";
import { startS3Gateway } from "./s3-gateway.ts";
import { type Poller, startPoller } from "./sqs-poller.ts";
import { restoreSnapshot, saveSnapshot } from "./snapshot.ts";
import { embeddedVectorStore } from "../functions/shared/vector-store/embedded.ts";

export const LOCAL_REGION = "us-east-1";
const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

export interface LocalStackOptions {
  /** Port of the local API gateway; 0 picks a free one. */
  port?: number;
  /** Keep data here across restarts instead of in memory. */
  dataDir?: string;
  /** Reuse a running DynamoDB Local instead of starting one (tests share one per run). */
  dynamoEndpoint?: string;
  /** Reuse a running S3/SQS emulator instead of starting one. */
  emulatorEndpoint?: string;
  /** Prefix of the table, bucket and queue names; random by default so stacks never collide. */
  prefix?: string;
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  /** Start the SQS pollers that drive the workers (default true). */
  workers?: boolean;
  workerConcurrency?: number;
  rateLimit?: { ratePerSecond: number; burst: number };
  /** The public routes' method throttles by function id; the dev stage's by default. */
  publicMethodThrottles?: GatewayOptions["publicMethodThrottles"];
  /** Seconds the gateway reuses the authorizer's answer for a token (0: never); the dev stage's by default. */
  authorizerCacheTtlSeconds?: number;
  /** Extra environment for the functions. */
  env?: Record<string, string>;
  /** Told of every request through the gateway and its response (the integration suite's contract check). */
  onExchange?: GatewayOptions["onExchange"];
  /** The clock of the gateway's authorizer cache (tests move it instead of waiting for the TTL). */
  gatewayClock?: GatewayOptions["now"];
  /** Where sent e-mail is kept (sign-in links); a fresh temporary folder by default. */
  outboxDir?: string;
}

export interface LocalStack {
  baseUrl: string;
  /** The local outbox: one JSON file per e-mail the functions sent. */
  outboxDir: string;
  resources: LocalResources;
  endpoints: { dynamo: string; s3: string; sqs: string };
  clients: { dynamo: DynamoDBClient; s3: S3Client; sqs: SQSClient };
  /** Stops the pollers (in-flight batches finish) without stopping the rest. */
  stopWorkers(): Promise<void>;
  startWorkers(): void;
  stop(): Promise<void>;
}

/**
 * The whole service on one machine, with no AWS account and no network: DynamoDB Local, the fauxqs
 * S3/SQS emulator behind a presigned-URL checker, the local API gateway over the route table, and
 * pollers that drive the real workers. Functions run in this process and find everything through
 * the same environment variables Lambda gives them.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error("stop failed", error));
    stops.length = 0;
  };
  try {
    Object.assign(process.env, {
      AWS_REGION: LOCAL_REGION,
      AWS_DEFAULT_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: "true",
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? "WARN",
      // Lambda runs Node 24; the SDK's notice about an older local Node says nothing useful here.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    });
    let dynamoEndpoint = options.dynamoEndpoint;
    if (!dynamoEndpoint) {
      const dynamoDb = await startDynamoDbLocal({ dataDir: options.dataDir ? `${options.dataDir}/dynamodb` : undefined });
      stops.push(dynamoDb.stop);
      dynamoEndpoint = dynamoDb.endpoint;
    }
    let emulatorEndpoint = options.emulatorEndpoint;
    let emulator: Emulator | undefined;
    if (!emulatorEndpoint) {
      emulator = await startEmulator({ region: LOCAL_REGION });
      stops.push(() => emulator!.stop());
      emulatorEndpoint = emulator.endpoint;
    }
    const s3Gateway = await startS3Gateway({ upstream: emulatorEndpoint, region: LOCAL_REGION, ...LOCAL_CREDENTIALS });
    stops.push(s3Gateway.close);
    const endpoints = { dynamo: dynamoEndpoint, s3: s3Gateway.endpoint, sqs: emulatorEndpoint };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamo,
      AWS_ENDPOINT_URL_S3: endpoints.s3,
      AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    });

    const clients = {
      dynamo: new DynamoDBClient({ endpoint: endpoints.dynamo }),
      s3: new S3Client({ endpoint: endpoints.s3, forcePathStyle: true }),
      sqs: new SQSClient({ endpoint: endpoints.sqs, useQueueUrlAsEndpoint: false }),
    };
    stops.push(async () => {
      clients.dynamo.destroy();
      clients.s3.destroy();
      clients.sqs.destroy();
    });
    const prefix = options.prefix ?? `kis-${randomBytes(4).toString("hex")}`;
    const maxReceiveCount = options.maxReceiveCount;
    const resources = await createResources(clients, {
      prefix,
      // Unset, each queue's follows its worker's timeout (resources.ts); tests shorten it to see redeliveries.
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
      maxReceiveCount,
    });
    const outboxDir = options.outboxDir ?? (options.dataDir ? `${options.dataDir}/outbox` : mkdtempSync(join(tmpdir(), "kis-outbox-")));
    // A folder the stack made for itself goes with it; a chosen or persisted one stays.
    if (!options.outboxDir && !options.dataDir) stops.push(() => rm(outboxDir, { recursive: true, force: true }));
    Object.assign(process.env, {
      [ENV.tableName]: resources.tableName,
      [ENV.bucketName]: resources.bucketName,
      [ENV.ingestQueueUrl]: resources.queues.ingest.url,
      [ENV.deleteQueueUrl]: resources.queues.delete.url,
      [ENV.mailQueueUrl]: resources.queues.mail.url,
      [ENV.stage]: "local",
      [ENV.defaultEmbeddingProvider]: "LOCAL",
      // Offline: no reranker unless a namespace names one (searches answer `x-rerank: unavailable`).
      [ENV.defaultReranker]: "NONE",
      // Offline: chat answers only with a model a hosting or request names (llmConfig)...
      [ENV.defaultLlm]: "NONE",
      // ...which may well run on this machine (Ollama, llama.cpp, LM Studio at 127.0.0.1).
      [ENV.allowPrivateModelUrls]: "true",
      // Nothing leaves the machine: e-mail is kept in a folder and printed (functions/shared/email/outbox.ts).
      [ENV.emailBackend]: "outbox",
      [ENV.emailOutboxDir]: outboxDir,
      [ENV.vectorStoreBackend]: "embedded",
      ...options.env,
    });

    if (options.dataDir && emulator) {
      await restoreSnapshot(`${options.dataDir}/emulator.json`, clients, resources);
      const snapshotPath = `${options.dataDir}/emulator.json`;
      const fauxqs = emulator;
      stops.push(() => saveSnapshot(snapshotPath, clients, resources, fauxqs));
      // The embedded vector store lives in this process; it is saved and restored with the rest.
      const vectorsPath = `${options.dataDir}/vectors.bin`;
      await embeddedVectorStore().loadFrom(vectorsPath);
      stops.push(() => embeddedVectorStore().saveTo(vectorsPath));
    }

    const gateway = await startGateway({
      port: options.port ?? 0,
      rateLimit: options.rateLimit ?? { ratePerSecond: 100, burst: 200 },
      authorizerCacheTtlSeconds: options.authorizerCacheTtlSeconds,
      publicMethodThrottles: options.publicMethodThrottles,
      onExchange: options.onExchange,
      now: options.gatewayClock,
    });
    stops.push(gateway.close);

    let pollers: Poller[] = [];
    const startWorkers = () => {
      if (pollers.length > 0) return;
      pollers = WORKERS.map((worker) =>
        startPoller({
          client: clients.sqs,
          queueUrl: resources.queues[worker.queue].url,
          queueArn: resources.queues[worker.queue].arn,
          functionName: worker.id,
          batchSize: worker.batchSize,
          timeoutSeconds: worker.timeoutSeconds,
          concurrency: options.workerConcurrency ?? worker.maxConcurrency.dev,
          loadHandler: () => loadWorker(worker.entry, maxReceiveCount ?? QUEUES[worker.queue].maxReceiveCount),
        }),
      );
    };
    const stopWorkers = async () => {
      const running = pollers;
      pollers = [];
      await Promise.all(running.map((poller) => poller.stop()));
    };
    if (options.workers !== false) startWorkers();
    // Pollers stop first so no batch is cut off by the emulator going away.
    stops.push(stopWorkers);

    return {
      baseUrl: gateway.url,
      outboxDir,
      resources,
      endpoints,
      clients,
      stopWorkers,
      startWorkers,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** Lambda gives each worker MAX_RECEIVE_COUNT in its environment; in one process it is set per call. */
async function loadWorker(entry: string, maxReceiveCount: number): Promise<SqsHandler> {
  const module = (await import(new URL(`../${entry}`, import.meta.url).href)) as { handler: SqsHandler };
  return (event, context) => {
    process.env[ENV.maxReceiveCount] = String(maxReceiveCount);
    return module.handler(event, context);
  };
}
