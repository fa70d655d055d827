import { BedrockRuntimeClient, InvokeModelCommand } from "@aws-sdk/client-bedrock-runtime";
import { describe, expect, it, vi } from "vitest";
import { bedrockEmbedder } from "../../functions/shared/embedding/providers/bedrock.ts";
import { embedderFor } from "../../functions/shared/embedding/index.ts";
import { EmbeddingError } from "../../functions/shared/embedding/types.ts";

interface Call {
  modelId: string;
  contentType: string | undefined;
  body: any;
}

/** A real client whose `send` answers like Bedrock, so nothing leaves the process. */
function stubbedClient(answer: (call: Call) => unknown | Promise<unknown>) {
  const client = new BedrockRuntimeClient({ region: "us-east-1", credentials: { accessKeyId: "test", secretAccessKey: "test" } });
  const calls: Call[] = [];
  vi.spyOn(client, "send").mockImplementation((async (command: unknown) => {
    expect(command).toBeInstanceOf(InvokeModelCommand);
    const input = (command as InvokeModelCommand).input;
    const call = { modelId: input.modelId!, contentType: input.contentType, body: JSON.parse(String(input.body)) };
    calls.push(call);
    const body = await answer(call);
    return { body: new TextEncoder().encode(JSON.stringify(body)), contentType: "application/json", $metadata: {} };
  }) as never);
  return { client, calls };
}

function vectorFor(text: string, dimension = 1024): number[] {
  const vector = new Array<number>(dimension).fill(0.001);
  for (let i = 0; i < text.length; i++) vector[(text.charCodeAt(i) + i * 7) % dimension]! += 1;
  return vector;
}

function serviceError(name: string, status: number) {
  return Object.assign(new Error(`${name} message`), { name, $metadata: { httpStatusCode: status } });
}

describe("Bedrock Titan v2 embedder", () => {
  it("sends one text per call with dimensions 1024 and normalize, and sums the reported tokens", async () => {
    const { client, calls } = stubbedClient((call) => ({
      embedding: vectorFor(call.body.inputText),
      inputTextTokenCount: call.body.inputText.length,
    }));
    const embedder = await embedderFor({ provider: "BEDROCK", model: "amazon.titan-embed-text-v2:0" }, { bedrock: { client } });
    const result = await embedder.embedDocuments(["first text", "second", "third one"]);

    expect(embedder.dimension).toBe(1024);
    expect(calls).toHaveLength(3);
    expect(calls[0]).toEqual({
      modelId: "amazon.titan-embed-text-v2:0",
      contentType: "application/json",
      body: { inputText: "first text", dimensions: 1024, normalize: true },
    });
    expect(result.tokens).toBe("first text".length + "second".length + "third one".length);
    expect(result.vectors).toHaveLength(3);
    // Each vector belongs to its own text even though calls complete in any order.
    const expected = vectorFor("second");
    const norm = Math.hypot(...expected);
    expect(result.vectors[1]![0]).toBeCloseTo(expected[0]! / norm, 6);
  });

  it("keeps at most the configured number of calls in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    const { client, calls } = stubbedClient(async (call) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return { embedding: vectorFor(call.body.inputText), inputTextTokenCount: 1 };
    });
    const embedder = bedrockEmbedder("amazon.titan-embed-text-v2:0", { client, concurrency: 8 });
    const texts = Array.from({ length: 40 }, (_, index) => `text ${index}`);
    const result = await embedder.embedDocuments(texts);
    expect(calls).toHaveLength(40);
    expect(peak).toBe(8);
    expect(result.tokens).toBe(40);
  });

  it("answers a blank text with the zero vector without calling Bedrock", async () => {
    const { client, calls } = stubbedClient(() => ({ embedding: vectorFor("x"), inputTextTokenCount: 1 }));
    const embedder = bedrockEmbedder("amazon.titan-embed-text-v2:0", { client });
    const { vector, tokens } = await embedder.embedQuery("   ");
    expect(calls).toHaveLength(0);
    expect(tokens).toBe(0);
    expect(vector.every((value) => value === 0)).toBe(true);
  });

  it("refuses a vector of the wrong dimension", async () => {
    const { client } = stubbedClient(() => ({ embedding: vectorFor("x", 512), inputTextTokenCount: 1 }));
    const embedder = bedrockEmbedder("amazon.titan-embed-text-v2:0", { client });
    await expect(embedder.embedQuery("q")).rejects.toThrow(
      new EmbeddingError("BEDROCK", "Bedrock returned 512 dimensions for amazon.titan-embed-text-v2:0, expected 1024"),
    );
  });

  it("turns access and throttling failures into EmbeddingErrors that say what to do", async () => {
    const denied = stubbedClient(() => {
      throw serviceError("AccessDeniedException", 403);
    });
    const error = (await bedrockEmbedder("amazon.titan-embed-text-v2:0", { client: denied.client })
      .embedQuery("q")
      .catch((caught: unknown) => caught)) as EmbeddingError;
    expect(error).toBeInstanceOf(EmbeddingError);
    expect(error.message).toBe("Bedrock denied access to amazon.titan-embed-text-v2:0; enable model access in this region");
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(403);

    const throttled = stubbedClient(() => {
      throw serviceError("ThrottlingException", 429);
    });
    const busy = (await bedrockEmbedder("amazon.titan-embed-text-v2:0", { client: throttled.client })
      .embedDocuments(["a", "b"])
      .catch((caught: unknown) => caught)) as EmbeddingError;
    expect(busy).toBeInstanceOf(EmbeddingError);
    expect(busy.retryable).toBe(true);
  });
});

describe("Bedrock Cohere v3 embedder", () => {
  const cohere = (call: Call) => ({
    id: "x",
    response_type: "embeddings_floats",
    texts: call.body.texts,
    embeddings: call.body.texts.map((text: string) => vectorFor(text)),
  });

  it("sends at most 96 texts per call as search_document with END truncation", async () => {
    const { client, calls } = stubbedClient(cohere);
    const embedder = bedrockEmbedder("cohere.embed-multilingual-v3", { client });
    const texts = Array.from({ length: 200 }, (_, index) => `passage ${index}`);
    const result = await embedder.embedDocuments(texts);
    expect(calls.map((call) => call.body.texts.length)).toEqual([96, 96, 8]);
    expect(calls[0]!.modelId).toBe("cohere.embed-multilingual-v3");
    expect(calls[0]!.body).toMatchObject({ input_type: "search_document", truncate: "END" });
    expect(calls[2]!.body.texts[7]).toBe("passage 199");
    expect(result.vectors).toHaveLength(200);
    // Cohere reports no usage: estimated as ceil(characters / 4) per text.
    expect(result.tokens).toBe(texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0));
  });

  it("embeds queries as search_query", async () => {
    const { client, calls } = stubbedClient(cohere);
    const embedder = bedrockEmbedder("cohere.embed-english-v3", { client });
    const { vector } = await embedder.embedQuery("where is the invoice?");
    expect(calls[0]!.body).toEqual({ texts: ["where is the invoice?"], input_type: "search_query", truncate: "END" });
    expect(vector).toHaveLength(1024);
  });

  it("cuts texts to the 2,048 characters Bedrock accepts for Cohere", async () => {
    const { client, calls } = stubbedClient(cohere);
    const embedder = bedrockEmbedder("cohere.embed-english-v3", { client });
    await embedder.embedDocuments(["x".repeat(5000)]);
    expect(calls[0]!.body.texts[0]).toHaveLength(2048);
  });

  it("fails when Bedrock returns fewer embeddings than texts", async () => {
    const { client } = stubbedClient(() => ({ embeddings: [vectorFor("only one")] }));
    const embedder = bedrockEmbedder("cohere.embed-english-v3", { client });
    await expect(embedder.embedDocuments(["a", "b"])).rejects.toBeInstanceOf(EmbeddingError);
  });
});
