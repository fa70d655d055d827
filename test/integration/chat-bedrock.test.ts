import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBedrockRuntimeStub } from "../support/bedrock-runtime.ts";
import { ingestAndWait, newNamespace, type TestNamespace } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";

// The deployed default: chat answered by Amazon Bedrock (ConverseStream, IAM, no key) with the
// region's default model, against a Bedrock Runtime endpoint on this machine. The suite's IAM check
// then holds every ConverseStream call against the synthesized Chat and HostedChat policies.
// Offered tools (agentic chat), the model searches once, then answers.
const bedrock = await startBedrockRuntimeStub({
  deltaDelayMs: 2,
  converseToolUses: (conversation) => {
    const answered = (conversation.body.messages as { content: { toolResult?: unknown }[] }[]).some((message) => message.content.some((block) => block.toolResult));
    return answered ? undefined : [{ name: "search", input: { query: "Leeds shipping", mode: "hybrid" } }];
  },
});
const api = useLocalStack({
  env: {
    DEFAULT_LLM: "BEDROCK",
    AWS_REGION: "us-east-1",
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.endpoint,
  },
});
afterAll(async () => {
  await bedrock.close();
});

let ns: TestNamespace;

beforeAll(async () => {
  ns = await newNamespace(api);
  const doc = await ingestAndWait(ns, { type: "TEXT", text: "The warehouse in Leeds ships orders placed before 2 pm on the same day.", fileName: "dispatch.md" });
  expect(doc.document.status).toBe("COMPLETED");
});

describe("chat on Amazon Bedrock", () => {
  it("answers with the region's default model through the geography's inference profile, the chunks in the system prompt", async () => {
    const response = await ns.call("POST", "/chat", { body: { query: "When are orders shipped from Leeds?", stream: false } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.headers.get("x-chat-model")).toBe("bedrock:us.amazon.nova-lite-v1:0");
    expect(response.body.data.text).toContain("[1]");
    expect(response.body.data.usage.inputTokens).toBeGreaterThan(0);
    const conversation = bedrock.conversations.at(-1)!;
    expect(conversation.modelId).toBe("us.amazon.nova-lite-v1:0");
    const system = (conversation.body.system as { text: string }[]).map((block) => block.text).join("\n");
    expect(system).toContain("[1] dispatch.md\nThe warehouse in Leeds ships orders placed before 2 pm");
    expect(conversation.body.messages).toEqual([{ role: "user", content: [{ text: "When are orders shipped from Leeds?" }] }]);
    expect(conversation.body.inferenceConfig.maxTokens).toBe(1024);
    expect(bedrock.violations).toEqual([]);
  });

  it("answers agentically with ConverseStream tool use: the search tool's results go back as toolResult blocks", async () => {
    const before = bedrock.conversations.length;
    const response = await ns.call("POST", "/chat", { body: { query: "When are orders shipped from Leeds?", agentic: true, stream: false } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const [first, second] = bedrock.conversations.slice(before);
    expect(bedrock.conversations.length - before).toBe(2);
    expect(first!.body.toolConfig.tools.map((tool: { toolSpec: { name: string } }) => tool.toolSpec.name)).toEqual(["search", "expand"]);
    const [, assistant, results] = second!.body.messages as { role: string; content: Record<string, any>[] }[];
    expect(assistant!.role).toBe("assistant");
    expect(assistant!.content[0]!.toolUse).toMatchObject({ name: "search", input: { query: "Leeds shipping", mode: "hybrid" } });
    expect(results!.role).toBe("user");
    expect(results!.content[0]!.toolResult.toolUseId).toBe(assistant!.content[0]!.toolUse.toolUseId);
    expect(results!.content[0]!.toolResult.content[0].text).toContain("ships orders placed before 2 pm");
    expect(response.body.data.toolCalls).toEqual([expect.objectContaining({ name: "search", input: { query: "Leeds shipping", mode: "hybrid" } })]);
    expect(response.body.data.sources[0]).toMatchObject({ index: 1, documentName: "dispatch.md" });
    expect(response.body.data.usage.inputTokens).toBeGreaterThan(0);
    expect(bedrock.violations).toEqual([]);
  });

  it("uses the model a hosting names, and streams it to the hosted page", async () => {
    await ns.call("POST", "/hosting");
    const patched = await ns.call("PATCH", "/hosting", { body: { protected: false, llmConfig: { provider: "BEDROCK", model: "amazon.nova-micro-v1:0" } } });
    expect(patched.body.data.llmConfig).toEqual({ provider: "BEDROCK", model: "amazon.nova-micro-v1:0" });
    const response = await fetch(`${api.stack().baseUrl}/hosted/${patched.body.data.slug}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "Same-day shipping?" }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"type":"text-delta"');
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(bedrock.conversations.at(-1)!.modelId).toBe("amazon.nova-micro-v1:0");
  });

  it("answers 429 while Bedrock throttles, and 422 when the account may not use the model", async () => {
    bedrock.failNextConverse({ status: 429, errorType: "ThrottlingException", message: "Too many requests" }, 2);
    const throttled = await ns.call("POST", "/chat", { body: { query: "shipping?", llmConfig: { provider: "BEDROCK" } } });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("5");

    bedrock.failNextConverse({ status: 403, errorType: "AccessDeniedException", message: "You don't have access to the model with the specified model ID." });
    const denied = await ns.call("POST", "/chat", { body: { query: "shipping?", llmConfig: { provider: "BEDROCK", model: "amazon.nova-pro-v1:0" } } });
    expect(denied.status).toBe(422);
    expect(denied.body.error.message).toMatch(/^llmConfig: .*amazon\.nova-pro/);
    expect(JSON.stringify(denied.body)).not.toMatch(/arn:aws/);
  });

  it("refuses a Bedrock model outside the deployment's allow-list, in a request or a hosting, naming it, before calling Bedrock", async () => {
    const calls = bedrock.conversations.length;
    for (const model of ["anthropic.claude-3-opus-20240229-v1:0", "us.anthropic.claude-opus-4-20250514-v1:0"]) {
      const refused = await ns.call("POST", "/chat", { body: { query: "shipping?", stream: false, llmConfig: { provider: "BEDROCK", model } } });
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body.error.message).toContain(`llmConfig.model: the Bedrock model ${model} is not allowed`);
      const hosting = await ns.call("PATCH", "/hosting", { body: { llmConfig: { provider: "BEDROCK", model } } });
      expect(hosting.status, JSON.stringify(hosting.body)).toBe(422);
      expect(hosting.body.error.message).toContain(model);
    }
    expect(bedrock.conversations.length).toBe(calls);
    // The documented set, through another geography's profile, is accepted.
    const allowed = await ns.call("PATCH", "/hosting", { body: { llmConfig: { provider: "BEDROCK", model: "eu.amazon.nova-pro-v1:0" } } });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
  });
});
