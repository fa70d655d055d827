import { beforeAll, describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { documentsOfJob, ingestText, newNamespace, type TestNamespace, waitForJob } from "../support/ingestion.ts";

const api = useLocalStack();

const CORPUS: Record<string, { topic: string; text: string }> = {
  photosynthesis: {
    topic: "biology",
    text: "Photosynthesis lets plants turn sunlight into chemical energy. Chlorophyll in the leaves absorbs light.\n\nThe plant takes in carbon dioxide and water and produces glucose and oxygen. The glucose feeds the plant's growth.",
  },
  volcanoes: {
    topic: "geology",
    text: "A volcano forms where magma rises through the crust. When pressure builds, the volcano erupts.\n\nDuring an eruption lava flows down the slopes and ash clouds spread. Tectonic plates explain where volcanoes appear.",
  },
  sourdough: {
    topic: "cooking",
    text: "Sourdough bread rises with a starter of wild yeast and bacteria instead of packaged yeast.\n\nFeed the starter with flour and water and let it ferment for several hours before mixing the dough. Bake in a hot oven for a crisp crust.",
  },
  kubernetes: {
    topic: "computing",
    text: "Kubernetes runs containers in pods across a cluster of nodes. The scheduler decides which node runs each pod.\n\nA deployment keeps the requested number of replicas running and replaces failed containers.",
  },
  chess: {
    topic: "games",
    text: "Chess openings shape the middle game. The Queen's Gambit offers a pawn to gain control of the centre.\n\nAgainst the gambit, Black may accept or decline; the Sicilian Defence is a sharp reply to the king's pawn.",
  },
  coral: {
    topic: "biology",
    text: "Coral reefs are built by tiny polyps and host a large share of marine biodiversity.\n\nWhen the ocean gets too warm, corals expel their algae and turn white: this bleaching can kill the reef.",
  },
  jazz: {
    topic: "music",
    text: "Jazz grew from blues and ragtime and prizes improvisation. Swing made it dance music.\n\nBebop players such as Charlie Parker improvised fast lines on the saxophone over complex chords.",
  },
  taxes: {
    topic: "finance",
    text: "Income tax returns report what you earned during the year and the deductions you claim.\n\nThe filing deadline for most individual returns is in April; filing late can cost interest and penalties.",
  },
};

const QUESTIONS: [string, string][] = [
  ["How do plants turn sunlight into glucose?", "photosynthesis"],
  ["What happens when magma erupts from a volcano?", "volcanoes"],
  ["how long should a sourdough starter ferment", "sourdough"],
  ["which node does the scheduler pick for a pod", "kubernetes"],
  ["best reply to the queen's gambit opening", "chess"],
  ["why are coral reefs bleaching", "coral"],
  ["saxophone improvisation in bebop", "jazz"],
  ["deadline for filing income tax returns", "taxes"],
];

let ns: TestNamespace;
const documentIdOf: Record<string, string> = {};

async function search(body: Record<string, unknown>, headers?: Record<string, string>) {
  const response = await ns.call("POST", "/search", { body, headers });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data as { id: string; score: number; text: string; metadata?: Record<string, unknown> }[];
}

function documentOf(resultId: string): string {
  return resultId.split("#")[0]!;
}

beforeAll(async () => {
  ns = await newNamespace(api);
  const jobs = await Promise.all(
    Object.entries(CORPUS).map(async ([name, { topic, text }]) => {
      const job = await ingestText(ns, text, { name, config: { chunkSize: 150, metadata: { topic, name } } });
      return [name, job.id] as const;
    }),
  );
  for (const [name, jobId] of jobs) {
    expect((await waitForJob(ns, jobId)).status).toBe("COMPLETED");
    documentIdOf[name] = (await documentsOfJob(ns, jobId))[0].id;
  }
});

describe("search relevance", () => {
  it.each(["semantic", "keyword", "hybrid"])("ranks the right document first for every question in %s mode", async (mode) => {
    for (const [question, expected] of QUESTIONS) {
      const results = await search({ query: question, mode, topK: 5 });
      expect(results.length, question).toBeGreaterThan(0);
      expect(documentOf(results[0]!.id), `${mode}: ${question}`).toBe(documentIdOf[expected]);
    }
  });

  it("returns results ordered by score, scores within 0–1, with text and metadata", async () => {
    for (const mode of ["semantic", "keyword", "hybrid"]) {
      const results = await search({ query: "plants sunlight oxygen", mode, topK: 10 });
      expect(results.length).toBeGreaterThan(1);
      for (let index = 0; index < results.length; index += 1) {
        const result = results[index]!;
        expect(result.score).toBeGreaterThanOrEqual(0);
        expect(result.score).toBeLessThanOrEqual(1);
        if (index > 0) expect(result.score).toBeLessThanOrEqual(results[index - 1]!.score);
        expect(result.id).toMatch(/^doc_[A-Za-z0-9_-]+#\d+$/);
        expect(result.text.length).toBeGreaterThan(0);
        expect(result.metadata).toMatchObject({ documentId: documentOf(result.id), namespaceId: ns.namespaceId, sequence_number: expect.any(Number) });
      }
    }
  });

  it("honours topK, includeMetadata=false and minScore", async () => {
    expect(await search({ query: "the", topK: 3, mode: "semantic" })).toHaveLength(3);
    const bare = await search({ query: "volcano lava", includeMetadata: false });
    expect(bare[0]).not.toHaveProperty("metadata");
    const strict = await search({ query: "volcano lava", minScore: 0.99, mode: "keyword" });
    expect(strict).toEqual([]);
  });
});

describe("reranking without a reranker", () => {
  it("answers rerank: true (the default) in retrieval order, without rerankScore, and says so in x-rerank", async () => {
    for (const body of [{ query: "volcano lava", topK: 5 }, { query: "volcano lava", topK: 5, rerank: true, rerankLimit: 3, rerankModel: "cohere:rerank-v3.5" }]) {
      const response = await ns.call("POST", "/search", { body });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-rerank")).toBe("unavailable");
      const results = response.body.data as { score: number; rerankScore?: number }[];
      expect(results.length).toBeGreaterThan(0);
      for (const result of results) expect(result).not.toHaveProperty("rerankScore");
      expect(results.map((result) => result.score)).toEqual([...results.map((result) => result.score)].sort((a, b) => b - a));
    }
    const plain = await ns.call("POST", "/search", { body: { query: "volcano lava", rerank: false } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("x-rerank")).toBeNull();
  });
});

describe("search filters", () => {
  it("applies implicit equality, $in, $ne and logical operators on chunk metadata", async () => {
    const biology = await search({ query: "energy from light and warm ocean", filter: { topic: "biology" }, topK: 20 });
    expect(new Set(biology.map((result) => result.metadata?.topic))).toEqual(new Set(["biology"]));
    const either = await search({ query: "energy", filter: { topic: { $in: ["music", "finance"] } }, topK: 20, mode: "hybrid" });
    expect(either.every((result) => ["music", "finance"].includes(String(result.metadata?.topic)))).toBe(true);
    const notCooking = await search({ query: "sourdough starter flour", filter: { topic: { $ne: "cooking" } }, mode: "keyword" });
    expect(notCooking.every((result) => result.metadata?.topic !== "cooking")).toBe(true);
    const combined = await search({ query: "reef bleaching", filter: { $and: [{ topic: "biology" }, { name: { $eq: "coral" } }] } });
    expect(combined.length).toBeGreaterThan(0);
    expect(combined.every((result) => result.metadata?.name === "coral")).toBe(true);
  });

  it.each([
    [{ query: "x", filter: { topic: { $regex: "bio" } } }, "filter"],
    [{ query: "x", filter: { $nor: [{ topic: "a" }] } }, "filter"],
    [{ query: "x", filter: { topic: { $gt: "a" } } }, "filter"],
    [{ query: "" }, "query"],
    [{}, "query"],
    [{ query: "x", topK: 0 }, "topK"],
    [{ query: "x", topK: 101 }, "topK"],
    [{ query: "x", mode: "fuzzy" }, "mode"],
    [{ query: "x", topK: 5, rerankLimit: 6 }, "rerankLimit"],
    [{ query: "x", minScore: 2 }, "minScore"],
    [{ query: "x", mode: "hybrid", semanticWeight: 1.5 }, "semanticWeight"],
    [{ query: "x", mode: "hybrid", semanticWeight: "half" }, "semanticWeight"],
  ])("answers 422 naming the field for %j", async (body, field) => {
    const response = await ns.call("POST", "/search", { body });
    expect(response.status).toBe(422);
    expect(response.body.error.message.startsWith(field), response.body.error.message).toBe(true);
  });
});

describe("keyword and hybrid search in the vector store", () => {
  it("finds CJK text by its characters and emoji-only queries by the emoji, in keyword and hybrid mode", async () => {
    const scripts = await newNamespace(api);
    for (const text of ["東京の天気は晴れです。", "Friday is 🍕 night at the office.", "Nothing to see in this one."]) {
      expect((await waitForJob(scripts, (await ingestText(scripts, text)).id)).status).toBe("COMPLETED");
    }
    for (const mode of ["keyword", "hybrid"]) {
      for (const [query, expected] of [["東京", "東京"], ["🍕", "🍕"]] as const) {
        const response = await scripts.call("POST", "/search", { body: { query, mode, topK: 3 } });
        expect(response.status).toBe(200);
        expect((response.body.data as { text: string }[])[0]?.text, `${mode} ${query}`).toContain(expected);
      }
    }
  });

  it("weighs the two lists by semanticWeight: 0 keeps keyword's matches first, 1 ranks semantic's first on top", async () => {
    const ids = async (body: Record<string, unknown>) => (await search({ topK: 5, ...body })).map((result) => result.id);
    for (const [question] of QUESTIONS.slice(0, 4)) {
      const keyword = await ids({ query: question, mode: "keyword" });
      // Ties in BM25 may be ordered differently (hybrid breaks them by similarity).
      expect(new Set((await ids({ query: question, mode: "hybrid", semanticWeight: 0 })).slice(0, keyword.length))).toEqual(new Set(keyword));
      expect((await ids({ query: question, mode: "hybrid", semanticWeight: 1 }))[0]).toBe((await ids({ query: question, mode: "semantic" }))[0]);
    }
  });
});

describe("search isolation and consistency", () => {
  it("searches only the caller's tenant, and without a header only records without a tenant", async () => {
    const isolated = await newNamespace(api);
    const secret = await ingestText(isolated, "The quarterly revenue forecast for project nightingale.", {}, { "x-tenant-id": "acme" });
    const shared = await ingestText(isolated, "A public note about the nightingale bird and its song.");
    await waitForJob(isolated, secret.id, undefined, { "x-tenant-id": "acme" });
    await waitForJob(isolated, shared.id);
    const ids = async (headers?: Record<string, string>) =>
      ((await isolated.call("POST", "/search", { body: { query: "nightingale forecast", mode: "hybrid" }, headers })).body.data as { id: string }[]).map(
        (result) => documentOf(result.id),
      );
    const [secretDocument] = await documentsOfJob(isolated, secret.id, { "x-tenant-id": "acme" });
    const [sharedDocument] = await documentsOfJob(isolated, shared.id);
    expect(await ids({ "x-tenant-id": "acme" })).toEqual([secretDocument.id]);
    expect(await ids()).toEqual([sharedDocument.id]);
    expect(await ids({ "x-tenant-id": "globex" })).toEqual([]);
  });

  it("never returns a deleted document, from the moment the delete is accepted", async () => {
    const own = await newNamespace(api);
    const job = await ingestText(own, "Marmalade is made from bitter Seville oranges and sugar.");
    await waitForJob(own, job.id);
    const [document] = await documentsOfJob(own, job.id);
    const query = { query: "seville orange marmalade" };
    for (const mode of ["semantic", "keyword", "hybrid"]) {
      expect((await own.call("POST", "/search", { body: { ...query, mode } })).body.data).toHaveLength(1);
    }
    expect((await own.call("DELETE", `/documents/${document.id}`)).status).toBe(200);
    for (const mode of ["semantic", "keyword", "hybrid"]) {
      expect((await own.call("POST", "/search", { body: { ...query, mode } })).body.data).toEqual([]);
    }
  });

  it("returns a re-ingested document once, during and after the re-ingestion", async () => {
    const own = await newNamespace(api);
    const text = "Lighthouses guide ships at night.\n\nThe lighthouse keeper trims the lamp.\n\nFog horns warn ships in bad weather.";
    const job = await ingestText(own, text, { config: { chunkSize: 40 } });
    await waitForJob(own, job.id);
    const [document] = await documentsOfJob(own, job.id);
    const searchIds = async (mode: string) =>
      ((await own.call("POST", "/search", { body: { query: "lighthouse ships lamp fog", mode, topK: 50 } })).body.data as { id: string }[]).map((result) => result.id);
    const before = await searchIds("hybrid");
    expect(before.length).toBe(document.totalChunks);
    expect((await own.call("POST", `/ingest-jobs/${job.id}/re-ingest`)).status).toBe(200);
    for (let probe = 0; probe < 10; probe += 1) {
      for (const mode of ["semantic", "keyword", "hybrid"]) {
        const ids = await searchIds(mode);
        expect(new Set(ids).size, mode).toBe(ids.length);
        expect(ids.length).toBeLessThanOrEqual(document.totalChunks);
      }
    }
    await waitForJob(own, job.id);
    for (const mode of ["semantic", "keyword", "hybrid"]) expect((await searchIds(mode)).sort()).toEqual([...before].sort());
  });
});
