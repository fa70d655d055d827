import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBedrockRuntimeStub } from "../support/bedrock-runtime.ts";
import { newNamespace, type TestNamespace, waitForJob } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { relevance, startRerankProviders } from "../support/rerank-providers.ts";

// Deployed defaults (Bedrock Rerank) against a Bedrock endpoint on this machine, and the HTTP
// providers against servers speaking their protocols; the local stack runs in us-east-1.
const bedrock = await startBedrockRuntimeStub();
const providers = await startRerankProviders();
const api = useLocalStack({
  env: {
    DEFAULT_RERANKER: "BEDROCK",
    AWS_REGION: "us-east-1",
    AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME: bedrock.endpoint,
    RERANKER_BASE_URLS: JSON.stringify({ COHERE: providers.baseUrl, VOYAGE: providers.baseUrl, ZEROENTROPY: providers.baseUrl }),
  },
});
afterAll(async () => {
  await bedrock.close();
  await providers.close();
});

const QUERY = "how are refunds for damaged parcels approved";
const TEXTS = [
  "Holiday requests are approved by team managers before the rota is published.",
  "Parcels are weighed and labelled before they leave the warehouse.",
  "Refunds for damaged parcels are approved by the returns desk within two working days.",
  "The office kitchen is cleaned every Friday afternoon.",
  "Damaged equipment must be reported to facilities the same day.",
  "Refunds are paid back to the card used for the original order.",
];

let ns: TestNamespace;

beforeAll(async () => {
  ns = await newNamespace(api);
  const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "BATCH", items: TEXTS.map((text) => ({ type: "TEXT", text })) } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await waitForJob(ns, created.body.data.id)).status).toBe("COMPLETED");
});

async function search(body: Record<string, unknown> = {}) {
  const response = await ns.call("POST", "/search", { body: { query: QUERY, topK: TEXTS.length, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response;
}

async function useReranker(rerankingConfig: Record<string, unknown> | null) {
  const response = await ns.call("PATCH", "", { body: { rerankingConfig } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

function expectRerankedByRelevance(data: { text: string; rerankScore?: number }[]) {
  for (const result of data) expect(result.rerankScore).toBe(relevance(QUERY, result.text));
  const scores = data.map((result) => result.rerankScore!);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));
  expect(data[0]!.text).toBe(TEXTS[2]);
}

describe("reranking search results", () => {
  it("reranks with Bedrock Rerank by default, with Cohere Rerank 3.5 where Amazon Rerank is not offered (us-east-1)", async () => {
    await useReranker(null);
    const before = bedrock.reranks.length;
    const response = await search();
    expect(response.headers.get("x-rerank")).toBe("reranked");
    expect(response.headers.get("x-rerank-model")).toBe("bedrock:cohere.rerank-v3-5:0");
    expect(response.body.data).toHaveLength(TEXTS.length);
    expectRerankedByRelevance(response.body.data);
    for (const result of response.body.data) expect(typeof result.score).toBe("number");

    const [request] = bedrock.reranks.slice(before);
    expect(bedrock.reranks.length - before).toBe(1);
    expect(request!.queries).toEqual([{ type: "TEXT", textQuery: { text: QUERY } }]);
    expect(request!.sources.map((source: any) => source.inlineDocumentSource.textDocument.text).sort()).toEqual([...TEXTS].sort());
    expect(request!.rerankingConfiguration.bedrockRerankingConfiguration).toEqual({
      numberOfResults: TEXTS.length,
      modelConfiguration: { modelArn: "arn:aws:bedrock:us-east-1::foundation-model/cohere.rerank-v3-5:0" },
    });
    expect(bedrock.violations).toEqual([]);
  });

  it("gives the reranker every topK candidate and returns the best rerankLimit", async () => {
    await useReranker(null);
    const before = bedrock.reranks.length;
    const response = await search({ rerankLimit: 2 });
    expect(response.body.data).toHaveLength(2);
    expectRerankedByRelevance(response.body.data);
    const request = bedrock.reranks[before]!;
    expect(request.sources).toHaveLength(TEXTS.length);
    expect(request.rerankingConfiguration.bedrockRerankingConfiguration.numberOfResults).toBe(2);
  });

  it("leaves the retrieval order alone, and says nothing, when rerank is false", async () => {
    await useReranker(null);
    const before = bedrock.reranks.length;
    const response = await search({ rerank: false });
    expect(response.headers.get("x-rerank")).toBeNull();
    expect(response.body.data.every((result: object) => !("rerankScore" in result))).toBe(true);
    expect(bedrock.reranks.length).toBe(before);
  });

  it("calls Cohere's v2 Rerank API with the namespace's key and the requested Cohere model", async () => {
    const namespace = await useReranker({ provider: "COHERE", apiKey: "co-test-key-0123456789" });
    expect(namespace.rerankingConfig).toEqual({ provider: "COHERE", apiKey: "co-...6789" });
    const before = providers.requests.length;
    const requested = await search({ rerankModel: "cohere:rerank-v3.5", rerankLimit: 3 });
    expect(requested.headers.get("x-rerank-model")).toBe("cohere:rerank-v3.5");
    expectRerankedByRelevance(requested.body.data);
    expect(requested.body.data).toHaveLength(3);
    const defaulted = await search({ rerankModel: "zeroentropy:zerank-2" });
    expect(defaulted.headers.get("x-rerank-model")).toBe("cohere:rerank-v4.0-pro");

    const [first, second] = providers.requests.slice(before);
    expect(first).toMatchObject({ provider: "COHERE", authorization: "Bearer co-test-key-0123456789", body: { model: "rerank-v3.5", query: QUERY, top_n: 3 } });
    expect([...first!.body.documents].sort()).toEqual([...TEXTS].sort());
    expect(second!.body.model).toBe("rerank-v4.0-pro");
    expect(providers.violations).toEqual([]);
  });

  it("calls Voyage AI's Rerank API with the namespace's model", async () => {
    await useReranker({ provider: "VOYAGE", apiKey: "pa-test-key-0123456789", model: "rerank-2.5-lite" });
    const before = providers.requests.length;
    const response = await search({ rerankLimit: 4 });
    expect(response.headers.get("x-rerank-model")).toBe("voyage:rerank-2.5-lite");
    expectRerankedByRelevance(response.body.data);
    expect(response.body.data).toHaveLength(4);
    expect(providers.requests[before]).toMatchObject({ provider: "VOYAGE", body: { model: "rerank-2.5-lite", top_k: 4, truncation: true } });
    expect(providers.violations).toEqual([]);
  });

  it("calls ZeroEntropy's rerank model API, honouring an agentset zerank name", async () => {
    await useReranker({ provider: "ZEROENTROPY", apiKey: "ze-test-key-0123456789" });
    const before = providers.requests.length;
    const response = await search({ rerankModel: "zeroentropy:zerank-1-small" });
    expect(response.headers.get("x-rerank-model")).toBe("zeroentropy:zerank-1-small");
    expectRerankedByRelevance(response.body.data);
    expect(providers.requests[before]).toMatchObject({ provider: "ZEROENTROPY", body: { model: "zerank-1-small", top_n: TEXTS.length } });
    expect(providers.violations).toEqual([]);
  });

  it("degrades to the retrieval order, trimmed to rerankLimit, when the reranker fails or refuses the key", async () => {
    const retrieval = (await search({ rerank: false })).body.data.map((result: { id: string }) => result.id);
    for (const apiKey of ["fail-test-key-0123456789", "bad-test-key-0123456789"]) {
      await useReranker({ provider: "COHERE", apiKey });
      const response = await search({ rerankLimit: 4 });
      expect(response.headers.get("x-rerank")).toBe("failed");
      expect(response.headers.get("x-rerank-model")).toBe("cohere:rerank-v4.0-pro");
      expect(response.body.data.map((result: { id: string }) => result.id)).toEqual(retrieval.slice(0, 4));
      expect(response.body.data.every((result: object) => !("rerankScore" in result))).toBe(true);
    }
  });

  it("never echoes a reranker key: create, get and list mask it, and null returns to the deployment default", async () => {
    const other = await newNamespace(api, { body: { rerankingConfig: { provider: "ZEROENTROPY", apiKey: "ze-secret-0123456789", model: "zerank-1" } } });
    const got = await other.call("GET", "");
    expect(got.body.data.rerankingConfig).toEqual({ provider: "ZEROENTROPY", model: "zerank-1", apiKey: "ze-...6789" });
    const listed = await api.request("GET", "/v1/namespace", { key: other.key });
    expect(JSON.stringify(listed.body)).not.toContain("ze-secret-0123456789");
    const cleared = await other.call("PATCH", "", { body: { rerankingConfig: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).not.toHaveProperty("rerankingConfig");
    expect((await other.call("GET", "")).body.data).not.toHaveProperty("rerankingConfig");
  });

  it("refuses a reranker it could not run, naming the field", async () => {
    const { key } = await api.newOrganization();
    const create = (rerankingConfig: unknown) =>
      api.request("POST", "/v1/namespace", { key, body: { name: "Refused", slug: `ns-${Math.random().toString(36).slice(2, 10)}`, rerankingConfig } });

    const notInRegion = await create({ provider: "BEDROCK", model: "amazon.rerank-v1:0" });
    expect(notInRegion.status).toBe(422);
    expect(JSON.stringify(notInRegion.body.error)).toMatch(/rerankingConfig.*model|model.*us-east-1/);
    expect(JSON.stringify(notInRegion.body.error)).toContain("us-east-1");

    const withoutKey = await create({ provider: "COHERE" });
    expect(withoutKey.status).toBe(422);
    expect(JSON.stringify(withoutKey.body.error)).toContain("apiKey");

    const unknownModel = await create({ provider: "VOYAGE", apiKey: "pa-0123456789abc", model: "rerank-9" });
    expect(unknownModel.status).toBe(422);
    expect((await create({ provider: "OPENAI", apiKey: "sk-0123456789abc" })).status).toBe(422);
  });
});
