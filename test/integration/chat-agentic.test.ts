import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestAndWait, ingestForTenant, newNamespace, type TestNamespace } from "../support/ingestion.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { assembled } from "../support/ui-message-stream.ts";
import { contentText, type OpenAiChatServer, startOpenAiChatServer } from "../support/openai-chat-server.ts";

const api = useLocalStack();

// The scripted model: what it searches for comes from the test, per request.
let plan: (body: Record<string, any>) => { name: string; arguments: Record<string, unknown> }[] | undefined = () => undefined;
let model: OpenAiChatServer;
let ns: TestNamespace;
const llmConfig = () => ({ provider: "OPENAI_COMPATIBLE", baseUrl: model.baseUrl, model: "agent-1" });

/** The tool results the model has been sent so far, parsed. */
const toolResults = (body: Record<string, any>) => (body.messages as { role: string; content: unknown }[]).filter((message) => message.role === "tool").map((message) => JSON.parse(contentText(message.content)));

/** Cites every source number the tools returned, as a model following the rules would. */
function citingAnswer(body: Record<string, any>): string {
  const numbers = new Set<number>();
  for (const result of toolResults(body)) {
    for (const hit of result.results ?? []) numbers.add(hit.source);
    if (typeof result.source === "number") numbers.add(result.source);
  }
  return numbers.size === 0 ? "I could not find it in the documents." : `Found it ${[...numbers].map((n) => `[${n}]`).join("")}.`;
}

/** Searches once for the question, then answers. */
const searchOnce = (body: Record<string, any>) => (toolResults(body).length === 0 ? [{ name: "search", arguments: { query: "refund days" } }] : undefined);

async function streamedChat(body: Record<string, unknown>) {
  const response = await fetch(`${api.stack().baseUrl}${ns.base}/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ns.key}` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return assembled(await response.text());
}

beforeAll(async () => {
  model = await startOpenAiChatServer({ deltaDelayMs: 1, answer: citingAnswer, toolCalls: (body) => plan(body) });
  ns = await newNamespace(api);
  const refunds = await ingestAndWait(
    ns,
    { type: "TEXT", text: "Returns policy.\n\nRefunds are paid within 14 days of the parcel arriving.\n\nExchanges are free within a month.", fileName: "refunds.md" },
    { chunkSize: 40 },
  );
  expect(refunds.document.status).toBe("COMPLETED");
  await ingestForTenant(ns, "beta", { type: "TEXT", text: "Refunds for tenant beta take 3 days: a secret arrangement.", fileName: "beta.md" });
});

afterAll(async () => {
  await model?.close();
});

describe("agentic chat", () => {
  it("lets the model search, streams its tool calls as the AI SDK's tool parts, and answers citing what it found", async () => {
    plan = searchOnce;
    const before = model.requests.length;
    const { chunks, message } = await streamedChat({ query: "How long do refunds take?", agentic: true, llmConfig: llmConfig() });
    // One round of tools, then the answer: two model calls.
    expect(model.requests.length - before).toBe(2);
    expect(model.violations).toEqual([]);
    const [first, second] = model.requests.slice(before);
    expect(first!.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["search", "expand"]);
    expect(first!.body.tool_choice).toBe("auto");
    const [result] = toolResults(second!.body);
    expect(result.results[0]).toMatchObject({ source: 1, document: "refunds.md" });
    expect(JSON.stringify(result)).toContain("14 days");

    const types = chunks.map((chunk) => chunk.type);
    expect(types).toContain("tool-input-available");
    expect(types.indexOf("tool-output-available")).toBeGreaterThan(types.indexOf("tool-input-available"));
    const tool = message!.parts.find((part) => part.type === "tool-search") as { state: string; input: { query: string }; output: { results: { source: number }[] } };
    expect(tool).toMatchObject({ state: "output-available", input: { query: "refund days" } });
    expect(tool.output.results[0]!.source).toBe(1);
    const text = message!.parts.filter((part) => part.type === "text").map((part) => part.text).join("");
    expect(text).toContain("[1]");
    const end = chunks.filter((chunk) => chunk.type === "text-end").at(-1) as { citations?: { source: { id: string } }[] };
    const sources = chunks.filter((chunk) => chunk.type === "data-sources").at(-1) as { data: { id: string; text: string }[] };
    expect(end.citations?.[0]?.source.id).toBe(sources.data[0]!.id);
    expect(message!.parts.some((part) => part.type === "source-document" && part.title === "refunds.md")).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
  });

  it("stops the tools after the rounds allowed and makes the model answer", async () => {
    plan = () => [{ name: "search", arguments: { query: "refunds again" } }];
    const before = model.requests.length;
    const response = await ns.call("POST", "/chat", { body: { query: "refunds?", agentic: true, maxToolRounds: 2, stream: false, llmConfig: llmConfig() } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const requests = model.requests.slice(before);
    expect(requests.length).toBe(3);
    expect(requests.map((request) => request.body.tool_choice)).toEqual(["auto", "auto", "none"]);
    expect(response.body.data.toolCalls).toHaveLength(2);
    expect(response.body.data.text).toContain("[1]");
    // The same chunk found twice keeps its number.
    expect(response.body.data.sources).toHaveLength(new Set(response.body.data.sources.map((source: { id: string }) => source.id)).size);
  });

  it("reads around a hit with expand, and the source then holds what the model read", async () => {
    plan = (body) => {
      const done = toolResults(body);
      if (done.length === 0) return [{ name: "search", arguments: { query: "refunds paid", mode: "keyword" } }];
      if (done.length === 1) return [{ name: "expand", arguments: { source: 1, before: 1, after: 2 } }];
      return undefined;
    };
    const response = await ns.call("POST", "/chat", { body: { query: "refunds?", agentic: true, stream: false, topK: 1, llmConfig: llmConfig() } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const expand = response.body.data.toolCalls.find((call: { name: string }) => call.name === "expand");
    expect(expand.output.text).toContain("Returns policy.");
    expect(expand.output.text).toContain("14 days");
    expect(expand.output.text).toContain("Exchanges are free");
    expect(response.body.data.sources[0].text).toContain("Exchanges are free");
  });

  it("tells the model when its tool input is wrong, without failing the answer", async () => {
    plan = (body) => (toolResults(body).length === 0 ? [{ name: "search", arguments: { query: "" } }, { name: "expand", arguments: { source: 9 } }, { name: "delete_everything", arguments: {} }] : undefined);
    const { chunks, message } = await streamedChat({ query: "refunds?", agentic: true, llmConfig: llmConfig() });
    const errors = chunks.filter((chunk) => chunk.type === "tool-output-error") as { errorText: string }[];
    expect(errors.map((error) => error.errorText)).toEqual([expect.stringMatching(/^invalid input: query/), expect.stringMatching(/no source 9/), expect.stringMatching(/unknown tool/)]);
    expect(message!.parts.filter((part) => part.type.startsWith("tool-")).every((part) => (part as { state: string }).state === "output-error")).toBe(true);
    expect(toolResults(model.requests.at(-1)!.body).every((result) => typeof result.error === "string")).toBe(true);
    expect(model.violations).toEqual([]);
  });

  it("searches only the caller's partition, within the caller's filter", async () => {
    plan = searchOnce;
    const tenant = await ns.call("POST", "/chat", { body: { query: "refunds?", agentic: true, stream: false, llmConfig: llmConfig() }, headers: { "x-tenant-id": "beta" } });
    expect(tenant.status).toBe(200);
    expect(JSON.stringify(tenant.body.data.toolCalls)).toContain("secret arrangement");
    expect(JSON.stringify(tenant.body.data.toolCalls)).not.toContain("14 days");
    const filtered = await ns.call("POST", "/chat", { body: { query: "refunds?", agentic: true, stream: false, filter: { filename: "nothing.md" }, llmConfig: llmConfig() } });
    expect(filtered.body.data.toolCalls[0].output.results).toEqual([]);
    expect(filtered.body.data.text).toContain("could not find");
  });

  it("stays single-shot unless asked, and follows the hosting's chatMode", async () => {
    plan = searchOnce;
    const before = model.requests.length;
    expect((await ns.call("POST", "/chat", { body: { query: "refunds?", stream: false, llmConfig: llmConfig() } })).status).toBe(200);
    expect(model.requests.length - before).toBe(1);
    expect(model.requests.at(-1)!.body.tools).toBeUndefined();

    await ns.call("POST", "/hosting");
    const patched = await ns.call("PATCH", "/hosting", { body: { protected: false, chatMode: "agentic", llmConfig: llmConfig() } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data.chatMode).toBe("agentic");
    const viaHosting = await ns.call("POST", "/chat", { body: { query: "refunds?", stream: false } });
    expect(viaHosting.body.data.toolCalls).toHaveLength(1);
    // A request can still ask for single-shot.
    expect((await ns.call("POST", "/chat", { body: { query: "refunds?", stream: false, agentic: false } })).body.data.toolCalls).toBeUndefined();

    const page = await fetch(`${api.stack().baseUrl}/hosted/${patched.body.data.slug}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "How long do refunds take?" }] }),
    });
    expect(page.status).toBe(200);
    const { message } = await assembled(await page.text());
    expect(message!.parts.some((part) => part.type === "tool-search")).toBe(true);
  });
});
