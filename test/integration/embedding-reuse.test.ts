import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import { startBedrockRuntimeStub } from "../support/bedrock-runtime.ts";
import { chunksOf, ingestAndWait, newNamespace, type TestNamespace, upload, waitForJob } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { tableItemsMentioning } from "../support/inventory.ts";

// Namespaces embed with Bedrock Titan V2 (one InvokeModel per chunk) against a server on this
// machine that counts the calls.
const bedrock = await startBedrockRuntimeStub();
const api = useLocalStack({ env: { DEFAULT_EMBEDDING_PROVIDER: "BEDROCK", AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.endpoint } });
afterAll(() => bedrock.close());

const TOPICS = ["invoices", "refunds", "shipping", "warranty", "returns", "discounts", "payroll", "onboarding", "security", "backups"];

function handbook(edited?: { topic: string; sentence: string }): string {
  return TOPICS.map((topic) => `## ${topic}\n\n${edited?.topic === topic ? edited.sentence : `The ${topic} policy applies to every team and is reviewed each quarter by the ${topic} owner.`}`).join("\n\n");
}

const CONFIG = { chunkSize: 160, chunkingStrategy: "by_title" };

async function reingest(ns: TestNamespace, jobId: string) {
  const response = await ns.call("POST", `/ingest-jobs/${jobId}/re-ingest`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return waitForJob(ns, jobId);
}

async function waitUntilGone(ns: TestNamespace, documentId: string) {
  const deadline = Date.now() + 30_000;
  while ((await ns.call("GET", `/documents/${documentId}`)).status !== 404) {
    if (Date.now() > deadline) throw new Error(`document ${documentId} was not deleted within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Embedding calls made while `work` runs. */
async function callsDuring(work: () => Promise<unknown>): Promise<number> {
  const before = bedrock.invocations.length;
  await work();
  return bedrock.invocations.length - before;
}

describe("embedding reuse on re-ingest", () => {
  it("makes no embedding call when a re-ingested document is unchanged, and search still finds it", async () => {
    const ns = await newNamespace(api);
    let ingested!: Awaited<ReturnType<typeof ingestAndWait>>;
    const first = await callsDuring(async () => (ingested = await ingestAndWait(ns, { type: "TEXT", text: handbook() }, CONFIG)));
    expect(ingested.document.status).toBe("COMPLETED");
    expect(first).toBe(ingested.document.totalChunks);
    expect(first).toBeGreaterThanOrEqual(TOPICS.length);

    let done!: Awaited<ReturnType<typeof reingest>>;
    expect(await callsDuring(async () => (done = await reingest(ns, ingested.job.id)))).toBe(0);
    expect(done.status).toBe("COMPLETED");

    const search = await ns.call("POST", "/search", { body: { query: "refunds policy owner", topK: 3 } });
    expect(search.status).toBe(200);
    expect(search.body.data[0].text).toContain("refunds");
    expect(bedrock.violations).toEqual([]);
  });

  it("embeds only the chunk whose text changed when an uploaded file is edited and re-ingested", async () => {
    const ns = await newNamespace(api);
    const key = await upload(ns, "handbook.md", "text/markdown", handbook());
    const ingested = await ingestAndWait(ns, { type: "MANAGED_FILE", key, fileName: "handbook.md" }, CONFIG);
    expect(ingested.document.status).toBe("COMPLETED");

    const stack = api.stack();
    const edited = handbook({ topic: "warranty", sentence: "Warranty claims now need a receipt and a serial number photographed on site." });
    await stack.clients.s3.send(new PutObjectCommand({ Bucket: stack.resources.bucketName, Key: key, Body: edited, ContentType: "text/markdown" }));
    const before = (await chunksOf(ns, ingested.document.id)).chunks.map((chunk) => chunk.text);
    expect(await callsDuring(() => reingest(ns, ingested.job.id))).toBe(1);
    const after = (await chunksOf(ns, ingested.document.id)).chunks.map((chunk) => chunk.text);
    expect(after.filter((text) => !before.includes(text))).toEqual([expect.stringContaining("serial number photographed")]);
    const search = await ns.call("POST", "/search", { body: { query: "serial number photographed receipt", topK: 1 } });
    expect(search.body.data[0].text).toContain("serial number photographed");
  });

  it("reuses the vectors another document of the namespace embedded, and embeds only its new chunk", async () => {
    const ns = await newNamespace(api);
    const original = await ingestAndWait(ns, { type: "TEXT", text: handbook() }, CONFIG);
    const extended = `${handbook()}\n\n## audits\n\nAudits of the ledger happen twice a year with an outside firm present.`;
    let copy!: Awaited<ReturnType<typeof ingestAndWait>>;
    const calls = await callsDuring(async () => (copy = await ingestAndWait(ns, { type: "TEXT", text: extended }, CONFIG)));
    expect(copy.document.status).toBe("COMPLETED");
    const known = new Set((await chunksOf(ns, original.document.id)).chunks.map((chunk) => chunk.text));
    const texts = (await chunksOf(ns, copy.document.id)).chunks.map((chunk) => chunk.text);
    const novel = texts.filter((text) => !known.has(text));
    expect(novel.length).toBeLessThan(texts.length / 2);
    expect(calls).toBe(novel.length);

    // Both documents are found by their shared text, and the new chunk by its own.
    const shared = await ns.call("POST", "/search", { body: { query: "refunds policy owner", topK: 2, rerank: false } });
    expect(new Set(shared.body.data.map((hit: { id: string }) => hit.id.split("#")[0]))).toEqual(new Set([original.document.id, copy.document.id]));
    const own = await ns.call("POST", "/search", { body: { query: "ledger audits outside firm", topK: 1, rerank: false } });
    expect(own.body.data[0].id.split("#")[0]).toBe(copy.document.id);
  });

  it("forgets a deleted document's vectors: the same text afterwards is embedded again, and no pointer names it", async () => {
    const ns = await newNamespace(api);
    const first = await ingestAndWait(ns, { type: "TEXT", text: handbook() }, CONFIG);
    const pointersTo = async (documentId: string) =>
      (await tableItemsMentioning(api.stack(), documentId)).filter((item) => item.entityType === "EmbeddingPointer");
    expect(await pointersTo(first.document.id)).toHaveLength(first.document.totalChunks);
    expect((await ns.call("DELETE", `/documents/${first.document.id}`)).status).toBe(200);
    await waitUntilGone(ns, first.document.id);
    expect(await pointersTo(first.document.id)).toEqual([]);
    expect(await callsDuring(() => ingestAndWait(ns, { type: "TEXT", text: handbook() }, CONFIG))).toBe(first.document.totalChunks);
  });

  it("never reuses across tenants of a namespace: each tenant's partition embeds its own copy", async () => {
    const ns = await newNamespace(api);
    const asTenant = (tenantId: string) => ({ ...ns, call: (method: string, path: string, init: Parameters<TestNamespace["call"]>[2] = {}) => ns.call(method, path, { ...init, headers: { ...init.headers, "x-tenant-id": tenantId } }) });
    const one = await callsDuring(() => ingestAndWait(asTenant("alpha"), { type: "TEXT", text: handbook() }, CONFIG));
    const two = await callsDuring(() => ingestAndWait(asTenant("beta"), { type: "TEXT", text: handbook() }, CONFIG));
    expect(one).toBeGreaterThan(0);
    expect(two).toBe(one);
    expect(await callsDuring(() => ingestAndWait(asTenant("beta"), { type: "TEXT", text: handbook() }, CONFIG))).toBe(0);
  });

  it("never reuses across namespaces: the same text in another namespace is embedded again", async () => {
    const first = await newNamespace(api);
    const second = await newNamespace(api);
    const one = await callsDuring(() => ingestAndWait(first, { type: "TEXT", text: handbook() }, CONFIG));
    const two = await callsDuring(() => ingestAndWait(second, { type: "TEXT", text: handbook() }, CONFIG));
    expect(one).toBeGreaterThan(0);
    expect(two).toBe(one);
  });
});
