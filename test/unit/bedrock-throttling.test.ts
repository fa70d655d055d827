import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { ConfiguredRetryStrategy } from "@smithy/core/retry";
import { describe, expect, it } from "vitest";
import { bedrockEmbedder } from "../../functions/shared/embedding/providers/bedrock.ts";
import { EmbeddingError } from "../../functions/shared/embedding/types.ts";

/**
 * A real Bedrock client whose HTTP answers are injected below its deserializer, so the SDK's own
 * retry strategy and error classes judge them exactly as they would Bedrock's. Its back-off is
 * injected as zero: the test asserts which answers are retried and how often, not how long it waits.
 */
function clientAnswering(answers: Array<{ status: number; body: unknown; type?: string }>) {
  const client = new BedrockRuntimeClient({
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
    retryStrategy: new ConfiguredRetryStrategy(5, () => 0),
  });
  let calls = 0;
  client.middlewareStack.addRelativeTo(
    () => async () => {
      const answer = answers[Math.min(calls, answers.length - 1)]!;
      calls += 1;
      return {
        response: {
          statusCode: answer.status,
          headers: { "content-type": "application/json", ...(answer.type ? { "x-amzn-errortype": answer.type } : {}) },
          body: new TextEncoder().encode(JSON.stringify(answer.body)),
        },
      };
    },
    { relation: "after", toMiddleware: "deserializerMiddleware", name: "injectedBedrockAnswers" },
  );
  return { client, calls: () => calls };
}

const vector = Array.from({ length: 1024 }, (_, index) => (index === 0 ? 1 : 0.001));
const ok = { status: 200, body: { embedding: vector, inputTextTokenCount: 3 } };
const throttled = { status: 429, type: "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/", body: { message: "Too many requests, please wait before trying again." } };

describe("Bedrock throttling", () => {
  it("is retried with backoff by the client until Bedrock answers, and the embedding succeeds", async () => {
    const { client, calls } = clientAnswering([throttled, throttled, ok]);
    const result = await bedrockEmbedder("amazon.titan-embed-text-v2:0", { client }).embedQuery("hello");
    expect(result.vector).toHaveLength(1024);
    expect(calls()).toBe(3);
  });

  it("that outlasts the client's attempts is a retryable EmbeddingError: the document is tried again later, not failed", async () => {
    const { client, calls } = clientAnswering([throttled]);
    const error = await bedrockEmbedder("amazon.titan-embed-text-v2:0", { client })
      .embedQuery("hello")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as EmbeddingError).retryable).toBe(true);
    expect(calls()).toBe(5);
  });

  it("a marketplace subscription still in progress is a retryable error that names the model and the fix", async () => {
    const denied = {
      status: 403,
      type: "AccessDeniedException",
      body: { message: "Model access is denied due to IAM user or service role is not authorized to perform the required AWS Marketplace actions (aws-marketplace:ViewSubscriptions, aws-marketplace:Subscribe) to enable access to this model." },
    };
    const { client } = clientAnswering([denied]);
    const error = (await bedrockEmbedder("cohere.embed-english-v3", { client })
      .embedDocuments(["hello"])
      .catch((caught: unknown) => caught)) as EmbeddingError;
    expect(error).toBeInstanceOf(EmbeddingError);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/cohere\.embed-english-v3.*AWS Marketplace.*aws-marketplace:Subscribe/);
  });
});
