import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import { startBedrockRuntimeStub } from "../support/bedrock-runtime.ts";
import { chunksOf, ingestAndWait, newNamespace, type TestNamespace, upload, waitForJob } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

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

  it("never reuses across namespaces: the same text in another namespace is embedded again", async () => {
    const first = await newNamespace(api);
    const second = await newNamespace(api);
    const one = await callsDuring(() => ingestAndWait(first, { type: "TEXT", text: handbook() }, CONFIG));
    const two = await callsDuring(() => ingestAndWait(second, { type: "TEXT", text: handbook() }, CONFIG));
    expect(one).toBeGreaterThan(0);
    expect(two).toBe(one);
  });
});
