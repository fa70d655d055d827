import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { embedAll, embedderFor } from "../../functions/shared/embedding/index.ts";
import { backoffMs, retryAfterMs } from "../../functions/shared/platform/provider-http.ts";
import { EmbeddingError } from "../../functions/shared/embedding/types.ts";

interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: any;
}

type Handler = (request: Recorded, response: ServerResponse, socket: IncomingMessage["socket"]) => void;

/** One local server imitating every provider; each test installs the behaviour it needs. */
let server: Server;
let origin: string;
let requests: Recorded[];
let handler: Handler;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const recorded: Recorded = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body: raw ? JSON.parse(raw) : undefined,
      };
      requests.push(recorded);
      handler(recorded, response, request.socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  requests = [];
});

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

/** A distinct, deterministic, non-normalised vector per input text. */
function fakeVector(text: string, dimension: number): number[] {
  const vector = new Array<number>(dimension).fill(0);
  for (let i = 0; i < text.length; i++) vector[(text.charCodeAt(i) * 31 + i) % dimension]! += 2;
  return vector;
}

function openAIResponse(inputs: string[], dimension: number, reverse = false) {
  const data = inputs.map((text, index) => ({ object: "embedding", index, embedding: fakeVector(text, dimension) }));
  if (reverse) data.reverse();
  return { object: "list", data, model: "m", usage: { prompt_tokens: 7 * inputs.length, total_tokens: 7 * inputs.length } };
}

function openAIServer(dimension: number): Handler {
  return (request, response) => json(response, 200, openAIResponse(request.body.input, dimension));
}

function isUnit(vector: Float32Array): boolean {
  let sum = 0;
  for (const value of vector) sum += value * value;
  return Math.abs(sum - 1) < 1e-5;
}

function cosineTo(vector: Float32Array, raw: number[]): number {
  let dot = 0;
  for (let i = 0; i < raw.length; i++) dot += vector[i]! * raw[i]!;
  return dot / Math.hypot(...raw);
}

const FAST = { retryBaseDelayMs: 1, maxRetryDelayMs: 20 };
const KEY = "sk-test-SECRET0123456789abcdef";

describe("OpenAI embedder", () => {
  const config = { provider: "OPENAI" as const, model: "text-embedding-3-small" as const, apiKey: KEY };

  it("posts {model, input} with a Bearer key and returns normalised vectors in input order", async () => {
    handler = (request, response) => json(response, 200, openAIResponse(request.body.input, 1536, true));
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    const result = await embedder.embedDocuments(["alpha", "beta", "gamma"]);

    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe("/v1/embeddings");
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.body).toEqual({ model: "text-embedding-3-small", input: ["alpha", "beta", "gamma"], encoding_format: "float" });

    expect(embedder.dimension).toBe(1536);
    expect(embedder.maxBatch).toBe(2048);
    expect(result.tokens).toBe(21);
    expect(result.vectors).toHaveLength(3);
    expect(result.vectors.every(isUnit)).toBe(true);
    // The server answered in reverse; `index` puts each vector back with its text.
    expect(cosineTo(result.vectors[0]!, fakeVector("alpha", 1536))).toBeCloseTo(1, 5);
    expect(cosineTo(result.vectors[1]!, fakeVector("beta", 1536))).toBeCloseTo(1, 5);
    expect(cosineTo(result.vectors[2]!, fakeVector("gamma", 1536))).toBeCloseTo(1, 5);
  });

  it("splits a batch whose total length would exceed the per-request token cap", async () => {
    handler = openAIServer(1536);
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    const long = "a".repeat(300_000);
    const result = await embedder.embedDocuments([long, long, long, long, long]);
    expect(requests.map((request) => request.body.input.length)).toEqual([2, 2, 1]);
    expect(result.vectors).toHaveLength(5);
  });

  it("sends no request for blank texts and gives them the zero vector", async () => {
    handler = openAIServer(1536);
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    const result = await embedder.embedDocuments(["", "text", "  "]);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.body.input).toEqual(["text"]);
    expect(result.vectors[0]!.every((value) => value === 0)).toBe(true);
    expect(result.vectors[2]!.every((value) => value === 0)).toBe(true);
    expect(isUnit(result.vectors[1]!)).toBe(true);
  });

  it("retries a 429 after the Retry-After delay and then succeeds", async () => {
    let calls = 0;
    handler = (request, response) => {
      calls++;
      if (calls === 1) json(response, 429, { error: { message: "Rate limit reached" } }, { "retry-after": "0" });
      else json(response, 200, openAIResponse(request.body.input, 1536));
    };
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    const result = await embedder.embedQuery("question");
    expect(requests).toHaveLength(2);
    expect(isUnit(result.vector)).toBe(true);
  });

  it("retries server errors and dropped connections", async () => {
    let calls = 0;
    handler = (request, response, socket) => {
      calls++;
      if (calls === 1) socket.destroy();
      else if (calls === 2) json(response, 503, { error: { message: "overloaded" } });
      else json(response, 200, openAIResponse(request.body.input, 1536));
    };
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    await embedder.embedDocuments(["x"]);
    expect(requests).toHaveLength(3);
  });

  it("gives up after maxAttempts with a retryable EmbeddingError", async () => {
    handler = (_request, response) => json(response, 500, { error: { message: "internal" } });
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST, maxAttempts: 3 } });
    const error = await embedder.embedDocuments(["x"]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as EmbeddingError).retryable).toBe(true);
    expect((error as EmbeddingError).message).toMatch(/HTTP 500.*3 attempts/);
    expect(requests).toHaveLength(3);
  });

  it("does not retry a 401 and never puts the key in the error message", async () => {
    handler = (_request, response) =>
      json(response, 401, { error: { message: `Incorrect API key provided: ${KEY}. You can find your API key at ...` } });
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    const error = (await embedder.embedDocuments(["x"]).catch((caught: unknown) => caught)) as EmbeddingError;
    expect(error).toBeInstanceOf(EmbeddingError);
    expect(error.provider).toBe("OPENAI");
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("OpenAI rejected the API key (HTTP 401)");
    expect(error.message).not.toContain("SECRET");
    expect(requests).toHaveLength(1);
  });

  it("reports a refused request with the provider's reason, scrubbed of the key", async () => {
    handler = (_request, response) =>
      json(response, 400, { error: { message: `This model's maximum context length is 8192 tokens (key ${KEY})` } });
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    const error = (await embedder.embedDocuments(["x"]).catch((caught: unknown) => caught)) as EmbeddingError;
    expect(error.message).toContain("OpenAI refused the request (HTTP 400): This model's maximum context length is 8192 tokens");
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain("SECRET");
    expect(requests).toHaveLength(1);
  });

  it("also hides another key-shaped string but keeps ordinary words", async () => {
    handler = (_request, response) =>
      json(response, 400, { error: { message: "Invalid parameters for key sk-proj-abcd****wxyz and 0123456789abcdef0123456789abcdef" } });
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    await expect(embedder.embedQuery("q")).rejects.toThrow(
      "OpenAI refused the request (HTTP 400): Invalid parameters for key [redacted] and [redacted]",
    );
  });

  it("fails with an EmbeddingError when the vectors have the wrong dimension", async () => {
    handler = openAIServer(3072);
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    const error = await embedder.embedDocuments(["x"]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as Error).message).toBe("OpenAI returned vectors of 3072 dimensions, but text-embedding-3-small has 1536");
  });

  it("times out a request that gets no answer", async () => {
    handler = () => undefined;
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST, timeoutMs: 150, maxAttempts: 2 } });
    const error = await embedder.embedDocuments(["x"]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as Error).message).toBe("OpenAI did not answer within 150 ms (gave up after 2 attempts)");
    expect(requests).toHaveLength(2);
  });
});

describe("Azure OpenAI embedder", () => {
  it("calls the deployment URL with the api-version and an api-key header", async () => {
    handler = openAIServer(3072);
    const embedder = await embedderFor(
      {
        provider: "AZURE_OPENAI",
        model: "text-embedding-3-large",
        apiKey: KEY,
        resourceName: "my-resource",
        deployment: "embed large",
        apiVersion: "2024-10-21",
      },
      { http: { baseUrl: origin, ...FAST } },
    );
    const result = await embedder.embedDocuments(["one", "two"]);
    expect(requests[0]!.path).toBe("/openai/deployments/embed%20large/embeddings?api-version=2024-10-21");
    expect(requests[0]!.headers["api-key"]).toBe(KEY);
    expect(requests[0]!.headers.authorization).toBeUndefined();
    expect(requests[0]!.body.input).toEqual(["one", "two"]);
    expect(result.vectors.map((vector) => vector.length)).toEqual([3072, 3072]);
  });

  it("hints at the deployment when its model does not match the configured one", async () => {
    handler = openAIServer(1536);
    const embedder = await embedderFor(
      { provider: "AZURE_OPENAI", model: "text-embedding-3-large", apiKey: KEY, resourceName: "r1", deployment: "d", apiVersion: "v" },
      { http: { baseUrl: origin, ...FAST } },
    );
    await expect(embedder.embedQuery("q")).rejects.toThrow(/check that the deployment runs that model/);
  });
});

describe("Voyage embedder", () => {
  const config = { provider: "VOYAGE" as const, model: "voyage-3-lite" as const, apiKey: "pa-voyage-key-0123456789" };

  it("sends input_type document for chunks and query for queries", async () => {
    handler = openAIServer(512);
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    await embedder.embedDocuments(["chunk"]);
    await embedder.embedQuery("question");
    expect(requests.map((request) => request.path)).toEqual(["/v1/embeddings", "/v1/embeddings"]);
    expect(requests[0]!.headers.authorization).toBe("Bearer pa-voyage-key-0123456789");
    expect(requests[0]!.body).toEqual({ input: ["chunk"], model: "voyage-3-lite", input_type: "document" });
    expect(requests[1]!.body).toEqual({ input: ["question"], model: "voyage-3-lite", input_type: "query" });
  });

  it("sends at most 128 texts per request and adds up the reported tokens", async () => {
    handler = openAIServer(512);
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    const texts = Array.from({ length: 300 }, (_, index) => `text ${index}`);
    const result = await embedder.embedDocuments(texts);
    expect(requests.map((request) => request.body.input.length)).toEqual([128, 128, 44]);
    expect(requests[2]!.body.input[43]).toBe("text 299");
    expect(result.vectors).toHaveLength(300);
    expect(result.tokens).toBe(300 * 7);
  });

  it("shows Voyage's error detail for a refused request", async () => {
    handler = (_request, response) => json(response, 400, { detail: "Input cannot contain empty strings" });
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1`, ...FAST } });
    await expect(embedder.embedQuery("q")).rejects.toThrow("Voyage AI refused the request (HTTP 400): Input cannot contain empty strings");
  });
});

describe("Google embedder", () => {
  const config = { provider: "GOOGLE" as const, model: "text-embedding-004" as const, apiKey: "AIzaSyFAKEKEY0123456789" };
  const googleServer: Handler = (request, response) =>
    json(response, 200, {
      embeddings: request.body.requests.map((item: { content: { parts: { text: string }[] } }) => ({
        values: fakeVector(item.content.parts[0]!.text, 768),
      })),
    });

  it("calls batchEmbedContents with task types, the key in a header, and estimates tokens", async () => {
    handler = googleServer;
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1beta`, ...FAST } });
    const documents = await embedder.embedDocuments(["12345678", "abc"]);
    await embedder.embedQuery("query");
    expect(requests[0]!.path).toBe("/v1beta/models/text-embedding-004:batchEmbedContents");
    expect(requests[0]!.path).not.toContain("key=");
    expect(requests[0]!.headers["x-goog-api-key"]).toBe("AIzaSyFAKEKEY0123456789");
    expect(requests[0]!.body).toEqual({
      requests: [
        { model: "models/text-embedding-004", content: { parts: [{ text: "12345678" }] }, taskType: "RETRIEVAL_DOCUMENT" },
        { model: "models/text-embedding-004", content: { parts: [{ text: "abc" }] }, taskType: "RETRIEVAL_DOCUMENT" },
      ],
    });
    expect(requests[1]!.body.requests[0].taskType).toBe("RETRIEVAL_QUERY");
    // No usage in Google's answer: ceil(8 / 4) + ceil(3 / 4).
    expect(documents.tokens).toBe(3);
    expect(documents.vectors.every(isUnit)).toBe(true);
  });

  it("sends at most 100 texts per request, also through embedAll", async () => {
    handler = googleServer;
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1beta`, ...FAST } });
    const texts = Array.from({ length: 250 }, (_, index) => `t${index}`);
    const offsets: number[] = [];
    const result = await embedAll(embedder, texts, ({ offset }) => {
      offsets.push(offset);
    });
    expect(requests.map((request) => request.body.requests.length)).toEqual([100, 100, 50]);
    expect(offsets).toEqual([0, 100, 200]);
    expect(result.vectors).toHaveLength(250);
  });

  it("scrubs a key-shaped string from Google's error text", async () => {
    handler = (_request, response) =>
      json(response, 400, { error: { code: 400, message: "API key not valid: AIzaSyFAKEKEY0123456789", status: "INVALID_ARGUMENT" } });
    const embedder = await embedderFor(config, { http: { baseUrl: `${origin}/v1beta`, ...FAST } });
    const error = (await embedder.embedQuery("q").catch((caught: unknown) => caught)) as EmbeddingError;
    expect(error.message).toBe("Google AI refused the request (HTTP 400): API key not valid: [redacted]");
  });
});

describe("retry timing", () => {
  it("reads Retry-After as seconds, as an HTTP date, and OpenAI's retry-after-ms", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "3" }))).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "3" }))).toBe(250);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
  });

  it("backs off exponentially with jitter and a cap", () => {
    for (let i = 0; i < 50; i++) {
      const first = backoffMs(1, 500, 20_000);
      const fourth = backoffMs(4, 500, 20_000);
      const tenth = backoffMs(10, 500, 20_000);
      expect(first).toBeGreaterThanOrEqual(250);
      expect(first).toBeLessThanOrEqual(500);
      expect(fourth).toBeGreaterThanOrEqual(2000);
      expect(fourth).toBeLessThanOrEqual(4000);
      expect(tenth).toBeLessThanOrEqual(20_000);
    }
  });
});
