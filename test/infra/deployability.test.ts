import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type VectorPartition } from "../../functions/shared/domain/partitions.ts";
import { embedderFor } from "../../functions/shared/embedding/index.ts";
import { type SdkCall, setSdkCallObserver } from "../../functions/shared/platform/sdk-observer.ts";
import { assertRoomForPartition } from "../../functions/shared/vector-store/quota.ts";
import { partitionIndexName, S3VectorsStore } from "../../functions/shared/vector-store/s3-vectors.ts";
import type { VectorOperation } from "../../functions/shared/vector-store/registry.ts";
import type { VectorRecord } from "../../functions/shared/vector-store/types.ts";
import { HTTP_FUNCTIONS } from "../../lib/routes.ts";
import { SCHEDULED_FUNCTIONS, WORKERS } from "../../lib/workers.ts";
import { answer, readJson } from "../support/aws-json-server.ts";
import { type BedrockRuntimeStub, startBedrockRuntimeStub } from "../support/bedrock-runtime.ts";
import { type GrantsByFunction, isGranted, synthesizedGrants } from "../support/iam.ts";

/**
 * What the local stack cannot show: the calls the code builds for Amazon S3 Vectors and Amazon
 * Bedrock, sent by the real SDK clients to servers on 127.0.0.1 speaking those services' protocols.
 * Each server refuses what the service documents it refuses (the numbers are AWS's, written from
 * the documentation rather than taken from the code under test; Bedrock's in support/bedrock-runtime.ts), and each command is
 * checked against the synthesized IAM policy of every function that declares the operation.
 */

// Amazon S3 Vectors, "Limitations and restrictions" and the API reference.
const S3_VECTORS = {
  indexName: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
  dimension: [1, 4096],
  vectorsPerPut: 500,
  keysPerDelete: 500,
  keysPerGet: 100,
  keyLength: 1024,
  metadataKeys: 50,
  filterableBytes: 2048,
  totalMetadataBytes: 40 * 1024,
  nonFilterableKeys: 10,
  topK: 100,
  listVectorsPage: 1000,
  listIndexesPage: 500,
  requestBytes: 20 * 1024 * 1024,
  bucketName: /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/,
  indexesPerBucket: 10_000,
  // "Configuring full-text search", TextSearchConfiguration, QueryVectors: full-text fields per
  // index, their key length and analyzers, and that text queries need an ENHANCED index whose
  // configuration names the key queried.
  textSearchConfigurations: 10,
  textSearchKeyLength: 63,
  textSearchLanguages: ["en", "fr", "es", "pt", "it", "de", "nl", "zh", "ja", "ko"],
  textQueryIndexMode: "ENHANCED",
} as const;


interface StubIndex {
  dimension: number;
  nonFilterable: string[];
  indexMode: string;
  textKeys: string[];
  vectors: Map<string, { data: number[]; metadata: Record<string, unknown> }>;
}

const violations: string[] = [];
const calls: SdkCall[] = [];
let grants: GrantsByFunction;
let vectorServer: Server;
let bedrock: BedrockRuntimeStub;
const restoreEnv: Record<string, string | undefined> = {};

/** S3 Vectors' REST-JSON API over an in-memory bucket, refusing what the service refuses. */
function s3VectorsServer(): Server {
  // The stack's bucket exists; slot buckets only once created.
  const buckets = new Map<string, Map<string, StubIndex>>([
    ["deploy-vectors", new Map()],
    ["slots-vectors", new Map()],
  ]);
  const refuse = (operation: string, message: string) => violations.push(`S3 Vectors ${operation}: ${message}`);
  return createServer(async (request, response) => {
    const { raw, body } = await readJson(request);
    const operation = (request.url ?? "").replace(/^\//, "").split("?")[0]!;
    if (raw.length > S3_VECTORS.requestBytes) refuse(operation, `request of ${raw.length} bytes`);
    if (body.indexName !== undefined && !S3_VECTORS.indexName.test(body.indexName)) refuse(operation, `index name ${body.indexName}`);
    if (body.vectorBucketName !== undefined && !S3_VECTORS.bucketName.test(body.vectorBucketName)) refuse(operation, `bucket name ${body.vectorBucketName}`);
    if (operation === "CreateVectorBucket") {
      if (buckets.has(body.vectorBucketName)) return answer(response, 409, { message: "bucket exists" }, "ConflictException");
      buckets.set(body.vectorBucketName, new Map());
      return answer(response, 200, {});
    }
    const indexes = buckets.get(body.vectorBucketName);
    if (!indexes) return answer(response, 404, { message: "The specified vector bucket could not be found" }, "NotFoundException");
    if (operation === "DeleteVectorBucket") {
      if (indexes.size > 0) return answer(response, 409, { message: "bucket not empty" }, "ConflictException");
      buckets.delete(body.vectorBucketName);
      return answer(response, 200, {});
    }
    const index = indexes.get(body.indexName);
    const notFound = () => answer(response, 404, { message: "The specified index could not be found" }, "NotFoundException");
    switch (operation) {
      case "CreateIndex": {
        const [low, high] = S3_VECTORS.dimension;
        if (body.dimension < low || body.dimension > high) refuse(operation, `dimension ${body.dimension}`);
        const nonFilterable = body.metadataConfiguration?.nonFilterableMetadataKeys ?? [];
        if (nonFilterable.length > S3_VECTORS.nonFilterableKeys) refuse(operation, `${nonFilterable.length} non-filterable keys`);
        const textSearch: { metadataKey: string; language?: string }[] = body.metadataConfiguration?.textSearchConfigurations ?? [];
        if (textSearch.length > S3_VECTORS.textSearchConfigurations) refuse(operation, `${textSearch.length} text search configurations`);
        for (const configuration of textSearch) {
          if (configuration.metadataKey.length < 1 || configuration.metadataKey.length > S3_VECTORS.textSearchKeyLength) refuse(operation, `text search key ${configuration.metadataKey}`);
          if (configuration.language !== undefined && !(S3_VECTORS.textSearchLanguages as readonly string[]).includes(configuration.language)) refuse(operation, `analyzer ${configuration.language}`);
        }
        if (index) return answer(response, 409, { message: "exists" }, "ConflictException");
        if (indexes.size >= S3_VECTORS.indexesPerBucket) return answer(response, 402, { message: "index quota" }, "ServiceQuotaExceededException");
        indexes.set(body.indexName, {
          dimension: body.dimension,
          nonFilterable,
          indexMode: body.indexMode ?? "CLASSIC",
          textKeys: textSearch.map((configuration) => configuration.metadataKey),
          vectors: new Map(),
        });
        return answer(response, 200, {});
      }
      case "GetIndex":
        if (!index) return notFound();
        return answer(response, 200, {
          index: {
            indexName: body.indexName,
            dimension: index.dimension,
            dataType: "float32",
            distanceMetric: "cosine",
            indexMode: index.indexMode,
            metadataConfiguration: {
              nonFilterableMetadataKeys: index.nonFilterable,
              textSearchConfigurations: index.textKeys.map((metadataKey) => ({ metadataKey, status: "ACTIVE" })),
            },
          },
        });
      case "ListIndexes": {
        if ((body.maxResults ?? 0) > S3_VECTORS.listIndexesPage) refuse(operation, `maxResults ${body.maxResults}`);
        const names = [...indexes.keys()].filter((name) => name.startsWith(body.prefix ?? ""));
        return answer(response, 200, { indexes: names.map((indexName) => ({ indexName, vectorBucketName: body.vectorBucketName, creationTime: 0 })) });
      }
      case "DeleteIndex":
        indexes.delete(body.indexName);
        return answer(response, 200, {});
      case "PutVectors": {
        if (!index) return notFound();
        if (body.vectors.length < 1 || body.vectors.length > S3_VECTORS.vectorsPerPut) refuse(operation, `${body.vectors.length} vectors`);
        for (const vector of body.vectors) {
          if (vector.key.length < 1 || vector.key.length > S3_VECTORS.keyLength) refuse(operation, `key of ${vector.key.length} characters`);
          if (vector.data.float32.length !== index.dimension) refuse(operation, `vector of ${vector.data.float32.length} for dimension ${index.dimension}`);
          const metadata = vector.metadata ?? {};
          if (Object.keys(metadata).length > S3_VECTORS.metadataKeys) refuse(operation, `${Object.keys(metadata).length} metadata keys`);
          const filterable = Object.fromEntries(Object.entries(metadata).filter(([key]) => !index.nonFilterable.includes(key)));
          if (Buffer.byteLength(JSON.stringify(filterable)) > S3_VECTORS.filterableBytes) refuse(operation, `filterable metadata of ${Buffer.byteLength(JSON.stringify(filterable))} bytes`);
          if (Buffer.byteLength(JSON.stringify(metadata)) > S3_VECTORS.totalMetadataBytes) refuse(operation, "metadata over 40 KB");
          index.vectors.set(vector.key, { data: vector.data.float32, metadata });
        }
        return answer(response, 200, {});
      }
      case "QueryVectors": {
        if (!index) return notFound();
        if (body.topK < 1 || body.topK > S3_VECTORS.topK) refuse(operation, `topK ${body.topK}`);
        const queryTexts: { metadataKey: string; text: string }[] | undefined = body.queryTexts;
        if (body.queryVector === undefined && queryTexts === undefined) refuse(operation, "neither queryVector nor queryTexts");
        if (body.queryVector !== undefined && body.queryVector.float32.length !== index.dimension) refuse(operation, "query vector of another dimension");
        if (queryTexts !== undefined) {
          if (index.indexMode !== S3_VECTORS.textQueryIndexMode) {
            return answer(response, 400, { message: "Full-text search requires an index in ENHANCED mode" }, "ValidationException");
          }
          for (const query of queryTexts) {
            if (!index.textKeys.includes(query.metadataKey)) refuse(operation, `text query on ${query.metadataKey}, not full-text searchable`);
            if (typeof query.text !== "string" || query.text.length === 0) refuse(operation, "empty query text");
          }
        }
        // A stand-in for BM25: how many of the query's words the text holds.
        const words = (text: string) => new Set(text.toLowerCase().split(/\W+/).filter(Boolean));
        const vectors = [...index.vectors]
          .map(([key, vector]) => {
            const bm25Scores = (queryTexts ?? []).map((query) => {
              const held = words(String(vector.metadata[query.metadataKey] ?? ""));
              return { metadataKey: query.metadataKey, score: [...words(query.text)].filter((word) => held.has(word)).length };
            });
            return { key, vector, bm25Scores };
          })
          .filter((entry) => body.queryVector !== undefined || entry.bm25Scores.some((score) => score.score > 0))
          .slice(0, body.topK)
          .map(({ key, vector, bm25Scores }) => ({
            key,
            ...(body.queryVector !== undefined ? { distance: 0.1 } : {}),
            ...(queryTexts !== undefined && body.returnScores ? { scores: { bm25Scores } } : {}),
            ...(body.returnMetadata ? { metadata: vector.metadata } : {}),
          }));
        return answer(response, 200, { vectors, distanceMetric: "cosine" });
      }
      case "GetVectors":
        if (!index) return notFound();
        if (body.keys.length < 1 || body.keys.length > S3_VECTORS.keysPerGet) refuse(operation, `${body.keys.length} keys`);
        return answer(response, 200, {
          vectors: (body.keys as string[]).flatMap((key) => {
            const vector = index.vectors.get(key);
            return vector ? [{ key, ...(body.returnData ? { data: { float32: vector.data } } : {}), ...(body.returnMetadata ? { metadata: vector.metadata } : {}) }] : [];
          }),
        });
      case "DeleteVectors":
        if (!index) return notFound();
        if (body.keys.length < 1 || body.keys.length > S3_VECTORS.keysPerDelete) refuse(operation, `${body.keys.length} keys`);
        for (const key of body.keys) index.vectors.delete(key);
        return answer(response, 200, {});
      case "ListVectors": {
        if (!index) return notFound();
        if ((body.maxResults ?? 0) > S3_VECTORS.listVectorsPage) refuse(operation, `maxResults ${body.maxResults}`);
        return answer(response, 200, {
          vectors: [...index.vectors]
            .slice(0, body.maxResults ?? 500)
            .map(([key, vector]) => ({ key, ...(body.returnData ? { data: { float32: vector.data } } : {}), ...(body.returnMetadata ? { metadata: vector.metadata } : {}) })),
        });
      }
      default:
        refuse(operation, "an operation the stub does not know");
        return answer(response, 400, { message: "unknown operation" }, "ValidationException");
    }
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function setEnv(name: string, value: string): void {
  if (!(name in restoreEnv)) restoreEnv[name] = process.env[name];
  process.env[name] = value;
}

beforeAll(async () => {
  grants = synthesizedGrants();
  vectorServer = s3VectorsServer();
  bedrock = await startBedrockRuntimeStub();
  setEnv("AWS_ENDPOINT_URL_S3VECTORS", await listen(vectorServer));
  setEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", bedrock.endpoint);
  setEnv("AWS_REGION", "us-east-1");
  setEnv("AWS_ACCESS_KEY_ID", "test");
  setEnv("AWS_SECRET_ACCESS_KEY", "test");
  setSdkCallObserver((call) => calls.push(call));
}, 120_000);

afterAll(async () => {
  setSdkCallObserver(null);
  for (const [name, value] of Object.entries(restoreEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await new Promise<void>((resolve) => vectorServer.close(() => resolve()));
  await bedrock.close();
});

/** The functions whose table entry declares the vector-store operation, or that embed. */
function functionsDeclaring(check: (access: { vectors?: readonly VectorOperation[]; embeds?: boolean }) => boolean): string[] {
  return [...HTTP_FUNCTIONS, ...WORKERS, ...SCHEDULED_FUNCTIONS].filter((definition) => check(definition.access)).map((definition) => definition.id);
}

/** Runs `work`, then checks each command it sent is granted to every function in `functions`. */
async function expectGranted(functions: string[], service: string, work: () => Promise<unknown>): Promise<string[]> {
  calls.length = 0;
  violations.length = 0;
  bedrock.violations.length = 0;
  await work();
  const commands = [...new Set(calls.map((call) => call.command))];
  expect(commands.length).toBeGreaterThan(0);
  expect(functions.length).toBeGreaterThan(0);
  const denied = functions.flatMap((id) =>
    commands.filter((command) => !isGranted(grants[id]!, { action: `${service}:${command}`, resource: "*" })).map((command) => `${id}: ${service}:${command}`),
  );
  // Resources are ARNs of the vector bucket and foundation models; actions are what can be missing.
  expect(denied, "actions the synthesized policies do not grant").toEqual([]);
  expect([...violations, ...bedrock.violations], "requests over the service's documented limits").toEqual([]);
  return commands;
}

const partition: VectorPartition = { namespaceId: "ns_deploy", tenantId: null, dimension: 1024 } as VectorPartition;

function records(count: number): VectorRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    key: `doc_deploy#run_1#${index}`,
    vector: Float32Array.from({ length: 1024 }, (_, position) => (position === index % 1024 ? 1 : 0.001)),
    // 8 KB of text per chunk: the chunker's largest, in the non-filterable key.
    text: "x".repeat(8192),
    metadata: { documentId: "doc_deploy", namespaceId: "ns_deploy", filename: "f".repeat(900), sequence_number: index },
  }));
}

describe("S3 Vectors calls, against a server speaking its API", () => {
  const store = () => new S3VectorsStore({ vectorBucketName: "deploy-vectors", retryBaseDelayMs: 1, maxRetryDelayMs: 5 });

  it("writes 1,200 large vectors in batches the service accepts, with only granted actions", async () => {
    const commands = await expectGranted(
      functionsDeclaring((access) => access.vectors?.includes("write") ?? false),
      "s3vectors",
      () => store().upsert(partition, records(1200)),
    );
    expect(commands).toEqual(expect.arrayContaining(["PutVectors", "CreateIndex"]));
  });

  it("queries at the largest topK with metadata", async () => {
    await expectGranted(functionsDeclaring((access) => access.vectors?.includes("query") ?? false), "s3vectors", () =>
      store().query(partition, Float32Array.from({ length: 1024 }, () => 0.03), { topK: 100, filter: { documentId: "doc_deploy" } } as never),
    );
  });

  it("searches the chunk text with S3 Vectors' full-text search, with only granted actions", async () => {
    const records: VectorRecord[] = [
      { key: "doc_text#run_1#0", vector: Float32Array.from({ length: 1024 }, () => 0.01), text: "The boiler in Oslo is inspected weekly", metadata: { documentId: "doc_text", namespaceId: "ns_deploy" } },
      { key: "doc_text#run_1#1", vector: Float32Array.from({ length: 1024 }, () => 0.02), text: "Nothing to see here", metadata: { documentId: "doc_text", namespaceId: "ns_deploy" } },
    ];
    const target = { ...partition, namespaceId: "ns_text" };
    await store().upsert(target, records);
    let matches: Awaited<ReturnType<S3VectorsStore["queryText"]>> = [];
    await expectGranted(functionsDeclaring((access) => access.vectors?.includes("query") ?? false), "s3vectors", async () => {
      matches = await store().queryText(target, "boiler Oslo", { topK: 100, filter: { documentId: "doc_text" } });
    });
    expect(matches.map((match) => [match.key, match.score])).toEqual([["doc_text#run_1#0", 2]]);
    expect(matches[0]).toMatchObject({ text: "The boiler in Oslo is inspected weekly", metadata: { documentId: "doc_text" } });
    expect(matches[0]!.metadata).not.toHaveProperty("text");
  });

  it("rebuilds an index from before full-text search so that text queries work in it, keeping its vectors", async () => {
    const target = { ...partition, namespaceId: "ns_old" };
    const { S3VectorsClient, CreateIndexCommand } = await import("@aws-sdk/client-s3vectors");
    const raw = new S3VectorsClient({});
    const indexName = (await import("../../functions/shared/vector-store/s3-vectors.ts")).partitionIndexName("ns_old", null);
    await raw.send(new CreateIndexCommand({ vectorBucketName: "deploy-vectors", indexName, dataType: "float32", dimension: 1024, distanceMetric: "cosine", metadataConfiguration: { nonFilterableMetadataKeys: ["text"] } }));
    const records: VectorRecord[] = Array.from({ length: 3 }, (_, index) => ({
      key: `doc_old#run_1#${index}`,
      vector: Float32Array.from({ length: 1024 }, () => 0.01 * (index + 1)),
      text: index === 1 ? "the turbine in Quito" : "nothing here",
      metadata: { documentId: "doc_old" },
    }));
    await store().upsert(target, records);
    await expect(store().queryText(target, "turbine", { topK: 5 })).rejects.toThrow(/ENHANCED/);
    const first = await store().upgradeIndexes();
    expect(first.upgraded).toBeGreaterThanOrEqual(1);
    expect((await store().queryText(target, "turbine", { topK: 5 })).map((match) => match.key)).toEqual(["doc_old#run_1#1"]);
    expect((await store().getVectors(target, records.map((record) => record.key))).size).toBe(3);
    const again = await store().upgradeIndexes();
    expect(again.upgraded).toBe(0);
  });

  it("spreads partitions over slot buckets it creates as needed, each tenant still on its own, and finds indexes from before slots", async () => {
    // A stack bucket of its own: upgrading moves every index of the bucket to its slot.
    const slotted = () => new S3VectorsStore({ vectorBucketName: "slots-vectors", bucketSlots: 8, retryBaseDelayMs: 1, maxRetryDelayMs: 5 });
    const unslotted = () => new S3VectorsStore({ vectorBucketName: "slots-vectors", retryBaseDelayMs: 1, maxRetryDelayMs: 5 });
    const tenants = Array.from({ length: 24 }, (_, index) => `tenant-${index}`);
    const of = (tenantId: string | null) => ({ namespaceId: "ns_slots", tenantId, dimension: 4 }) as VectorPartition;
    const vector = (index: number) => Float32Array.from([1, index + 1, 0.5, 0.25]);
    // One partition written before slots, in the stack's bucket.
    await unslotted().upsert(of(null), [{ key: "doc_legacy#run_1#0", vector: vector(0), text: "legacy turbine", metadata: { documentId: "doc_legacy" } }]);
    const commands = await expectGranted(functionsDeclaring((access) => access.vectors?.includes("write") ?? false), "s3vectors", async () => {
      for (const [index, tenantId] of tenants.entries()) {
        await slotted().upsert(of(tenantId), [{ key: `doc_${index}#run_1#0`, vector: vector(index), text: `turbine of ${tenantId}`, metadata: { documentId: `doc_${index}` } }]);
      }
    });
    expect(commands).toContain("CreateVectorBucket");
    const buckets = new Set(tenants.map((tenantId) => slotted().bucketOf(partitionIndexName("ns_slots", tenantId))));
    expect(buckets.size).toBeGreaterThan(3);
    for (const [index, tenantId] of tenants.entries()) {
      expect((await slotted().query(of(tenantId), vector(index), { topK: 10 })).map((match) => match.key)).toEqual([`doc_${index}#run_1#0`]);
      expect((await slotted().queryText(of(tenantId), "turbine", { topK: 10 })).map((match) => match.key)).toEqual([`doc_${index}#run_1#0`]);
    }
    // The legacy partition answers from the stack's bucket until upgrade moves it to its slot.
    expect((await slotted().queryText(of(null), "turbine", { topK: 10 })).map((match) => match.key)).toEqual(["doc_legacy#run_1#0"]);
    expect((await slotted().listPartitions("ns_slots")).length).toBe(25);
    await slotted().upgradeIndexes();
    expect((await slotted().queryText(of(null), "turbine", { topK: 10 })).map((match) => match.key)).toEqual(["doc_legacy#run_1#0"]);
    expect((await slotted().listPartitions("ns_slots")).length).toBe(25);
    expect(await slotted().countIndexes({ fresh: true, partition: of("tenant-0") })).toBeGreaterThan(0);
    for (const tenantId of [null, ...tenants]) await slotted().dropPartition(of(tenantId));
    expect(await slotted().listPartitions("ns_slots")).toEqual([]);
  });

  it("counts indexes for admission", async () => {
    await expectGranted(functionsDeclaring((access) => access.vectors?.includes("count") ?? false), "s3vectors", async () => {
      await store().countIndexes({ fresh: true });
      await store().indexesNeededFor(partition);
    });
  });

  it("admits a new partition whose slot bucket is not created yet, counting no indexes there", async () => {
    // A fresh deployment: the stack's bucket exists, its slot buckets come with their first index.
    const slotted = new S3VectorsStore({ vectorBucketName: "deploy-vectors", bucketSlots: 8, retryBaseDelayMs: 1, maxRetryDelayMs: 5 });
    const tenantId = Array.from({ length: 16 }, (_, index) => `tenant-${index}`).find(
      (tenant) => slotted.bucketOf(partitionIndexName("ns_fresh", tenant)) !== "deploy-vectors",
    )!;
    const fresh = { namespaceId: "ns_fresh", tenantId, dimension: 4 } as VectorPartition;
    await expectGranted(functionsDeclaring((access) => access.vectors?.includes("count") ?? false), "s3vectors", async () => {
      expect(await slotted.countIndexes({ fresh: true, partition: fresh })).toBe(0);
      await assertRoomForPartition(slotted, fresh);
    });
    // The operator's count shows the stack's bucket, not the slot buckets that do not exist.
    expect([...(await slotted.countIndexesByBucket()).keys()]).toEqual(["deploy-vectors"]);
  });

  it("reads back 1,200 vectors with their text for reuse, 100 keys per call", async () => {
    let found = new Map();
    await expectGranted(functionsDeclaring((access) => access.vectors?.includes("read") ?? false), "s3vectors", async () => {
      found = await store().getVectors(partition, records(1200).map((record) => record.key));
    });
    expect(found.size).toBe(1200);
    expect(found.get("doc_deploy#run_1#7")).toMatchObject({ text: "x".repeat(8192) });
  });

  it("deletes 1,200 keys, then the whole partition", async () => {
    await expectGranted(functionsDeclaring((access) => access.vectors?.includes("delete") ?? false), "s3vectors", async () => {
      await store().deleteKeys(partition, records(1200).map((record) => record.key));
      await store().dropPartition(partition);
    });
  });

  it("lists a namespace's partitions", async () => {
    await store().upsert(partition, records(1));
    await expectGranted(functionsDeclaring((access) => access.vectors?.includes("list") ?? false), "s3vectors", () => store().listPartitions("ns_deploy"));
  });
});

describe("Bedrock embedding calls, against a server speaking InvokeModel", () => {
  const embedding = functionsDeclaring((access) => access.embeds === true);

  it("Titan v2: one text per call, within its input size, at a dimension it offers", async () => {
    const embedder = await embedderFor({ provider: "BEDROCK", model: "amazon.titan-embed-text-v2:0" });
    await expectGranted(embedding, "bedrock", async () => {
      await embedder.embedDocuments(["short", "y".repeat(8192), "z".repeat(60_000)]);
      await embedder.embedQuery("what is x?");
    });
  });

  it("Cohere v3: at most 96 texts per call, with the input type of each use", async () => {
    const embedder = await embedderFor({ provider: "BEDROCK", model: "cohere.embed-multilingual-v3" });
    await expectGranted(embedding, "bedrock", async () => {
      await embedder.embedDocuments(Array.from({ length: 250 }, (_, index) => `text ${index} `.repeat(300)));
      await embedder.embedQuery("what is x?");
    });
  });
});

describe("sign-in e-mail, against a server speaking SES v2", () => {
  it("sends one plain-text message from the configured sender, signed for SES", async () => {
    const received: { path: string; authorization: string; body: any }[] = [];
    const server = createServer(async (request, response) => {
      const { body } = await readJson(request);
      received.push({ path: `${request.method} ${request.url}`, authorization: String(request.headers.authorization), body });
      answer(response, 200, { MessageId: "local-1" });
    });
    setEnv("AWS_ENDPOINT_URL_SESV2", await listen(server));
    setEnv("EMAIL_SENDER", "no-reply@pages.example.com");
    try {
      const { create: createEmailSender } = await import("../../functions/shared/email/ses.ts");
      await createEmailSender().send({ to: "ada@example.org", subject: "Sign in to Staff", text: "Open https://example.com/x" });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(received).toHaveLength(1);
    const [sent] = received;
    expect(sent!.path).toBe("POST /v2/email/outbound-emails");
    expect(sent!.authorization).toMatch(/Credential=[^/]+\/\d{8}\/us-east-1\/ses\/aws4_request/);
    expect(sent!.body).toEqual({
      FromEmailAddress: "no-reply@pages.example.com",
      Destination: { ToAddresses: ["ada@example.org"] },
      Content: { Simple: { Subject: { Data: "Sign in to Staff", Charset: "UTF-8" }, Body: { Text: { Data: "Open https://example.com/x", Charset: "UTF-8" } } } },
    });
  });
});
