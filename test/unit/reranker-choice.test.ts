import { describe, expect, it } from "vitest";
import { chooseReranker } from "../../functions/shared/reranking/index.ts";
import { rankedFromIndexes, RerankError } from "../../functions/shared/reranking/types.ts";

const deployed = (region: string) => ({ defaultProvider: "BEDROCK", region });

describe("choosing a reranker", () => {
  it("defaults to Amazon Rerank where Bedrock offers it, and to Cohere Rerank 3.5 in us-east-1", () => {
    expect(chooseReranker(undefined, undefined, deployed("us-west-2"))).toEqual({ provider: "BEDROCK", model: "amazon.rerank-v1:0" });
    expect(chooseReranker(undefined, undefined, deployed("us-east-1"))).toEqual({ provider: "BEDROCK", model: "cohere.rerank-v3-5:0" });
  });

  it("has no reranker where Bedrock offers none, or when the deployment has no default", () => {
    expect(chooseReranker(undefined, undefined, deployed("eu-west-1"))).toBeNull();
    expect(chooseReranker(undefined, "cohere:rerank-v3.5", { defaultProvider: "NONE", region: "us-west-2" })).toBeNull();
  });

  it("maps agentset Cohere names onto Bedrock's Cohere model, and other names onto the configured model", () => {
    expect(chooseReranker(undefined, "cohere:rerank-v4.0-pro", deployed("us-west-2"))?.model).toBe("cohere.rerank-v3-5:0");
    expect(chooseReranker(undefined, "zeroentropy:zerank-2", deployed("us-west-2"))?.model).toBe("amazon.rerank-v1:0");
  });

  it("prefers the namespace's provider and key over the deployment default", () => {
    const cohere = { provider: "COHERE" as const, apiKey: "co-key" };
    expect(chooseReranker(cohere, undefined, deployed("us-east-1"))).toEqual({ provider: "COHERE", model: "rerank-v4.0-pro", apiKey: "co-key" });
    expect(chooseReranker(cohere, "cohere:rerank-english-v3.0", deployed("us-east-1"))?.model).toBe("rerank-english-v3.0");
    expect(chooseReranker({ ...cohere, model: "rerank-v3.5" }, "zeroentropy:zerank-1", deployed("us-east-1"))?.model).toBe("rerank-v3.5");
    expect(chooseReranker({ provider: "VOYAGE", apiKey: "pa-key" }, "cohere:rerank-v3.5", { defaultProvider: "NONE", region: "us-east-1" })?.model).toBe("rerank-2.5");
  });

  it("falls back to a model the region offers when a stored Bedrock model is not offered there", () => {
    expect(chooseReranker({ provider: "BEDROCK", model: "amazon.rerank-v1:0" }, undefined, deployed("us-east-1"))?.model).toBe("cohere.rerank-v3-5:0");
  });
});

describe("reading a reranker's answer", () => {
  const candidates = ["a", "b", "c"].map((id) => ({ id, text: `text ${id}` }));

  it("orders by score, best first, and keeps the best topN whatever order the provider used", () => {
    const ranked = rankedFromIndexes("test", candidates, [{ index: 0, score: 0.1 }, { index: 2, score: 0.9 }, { index: 1, score: 0.5 }], 2);
    expect(ranked).toEqual([{ id: "c", score: 0.9 }, { id: "b", score: 0.5 }]);
  });

  it("refuses indexes out of range or repeated, and scores that are not numbers", () => {
    expect(() => rankedFromIndexes("test", candidates, [{ index: 3, score: 1 }], 3)).toThrow(RerankError);
    expect(() => rankedFromIndexes("test", candidates, [{ index: 1, score: 1 }, { index: 1, score: 0.5 }], 3)).toThrow(/repeated/);
    expect(() => rankedFromIndexes("test", candidates, [{ index: 0, score: "high" }], 3)).toThrow(/not a number/);
  });
});
