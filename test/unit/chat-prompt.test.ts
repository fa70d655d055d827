import { describe, expect, it } from "vitest";
import { CHAT_LIMITS, chatBody, citedMarkers, DEFAULT_SYSTEM_PROMPT, numberSources, promptMessages, retrievalQuery } from "../../functions/shared/domain/chat.ts";
import { chooseChatModel, llmConfigInput } from "../../functions/shared/domain/llm-config.ts";
import { tokenLimitField } from "../../functions/shared/llm/providers/openai-compatible.ts";
import { chatModelAllowList, DEFAULT_CHAT_MODELS, isAllowedChatModel } from "../../functions/shared/domain/catalogs/llm-providers.ts";
import { formatIssue } from "../../functions/shared/platform/zod.ts";

const hit = (id: string, text: string) => ({ id, documentName: `${id}.md`, citation: null, text, score: 0.5 });

describe("the chat prompt", () => {
  it("numbers the sources in retrieval order and cuts them to the source budget", () => {
    const sources = numberSources([hit("a", "x".repeat(CHAT_LIMITS.sourceLength + 500)), ...Array.from({ length: 10 }, (_, index) => hit(`b${index}`, "y".repeat(3_000)))]);
    expect(sources.map((source) => source.index)).toEqual(sources.map((_, index) => index + 1));
    expect(sources[0]!.text.length).toBe(CHAT_LIMITS.sourceLength);
    expect(sources.reduce((sum, source) => sum + source.text.length, 0)).toBeLessThanOrEqual(CHAT_LIMITS.sourceCharacters);
    expect(sources.length).toBeLessThan(11);
  });

  it("puts the prompt, the citation rules and the numbered sources in one system message, then the conversation", () => {
    const messages = promptMessages("Be a pirate.", numberSources([hit("refunds", "Refunds take 14 days.")]), [{ role: "user", content: "How long?" }]);
    expect(messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(messages[0]!.content).toMatch(/^Be a pirate\.\n\nAnswer only from the numbered sources/);
    expect(messages[0]!.content).toContain("[1] refunds.md\nRefunds take 14 days.");
    expect(promptMessages(null, [], [{ role: "user", content: "?" }])[0]!.content).toContain(DEFAULT_SYSTEM_PROMPT);
    expect(promptMessages("  ", [], [{ role: "user", content: "?" }])[0]!.content).toContain("(no sources were found for this question)");
  });

  it("keeps the latest turns within the history budget, opening with the user, and drops old citation numbers", () => {
    const long = "z".repeat(CHAT_LIMITS.historyCharacters / 2);
    const conversation = [
      { role: "user" as const, content: long },
      { role: "assistant" as const, content: `${long} as [1] says` },
      { role: "user" as const, content: long },
      { role: "assistant" as const, content: "It is 14 days [1][2]." },
      { role: "user" as const, content: "And for Norway?" },
    ];
    const messages = promptMessages(null, [], conversation).slice(1);
    expect(messages.at(-1)).toEqual({ role: "user", content: "And for Norway?" });
    expect(messages[0]!.role).toBe("user");
    expect(messages.length).toBe(3);
    expect(messages[1]!.content).toBe("It is 14 days.");
    // The question itself is never cut, even past the budget.
    expect(promptMessages(null, [], [{ role: "user", content: "q".repeat(CHAT_LIMITS.historyCharacters + 1) }])).toHaveLength(2);
  });

  it("searches a short follow-up with the question before it, and a full question alone", () => {
    const first = { role: "user" as const, content: "How long do refunds to Sweden take?" };
    const answer = { role: "assistant" as const, content: "Ten days [1]." };
    expect(retrievalQuery([first, answer, { role: "user", content: "And Norway?" }])).toBe("And Norway?\nHow long do refunds to Sweden take?");
    expect(retrievalQuery([first, answer, { role: "user", content: "What does shipping a parcel to Norway cost in winter?" }])).toBe(
      "What does shipping a parcel to Norway cost in winter?",
    );
    expect(retrievalQuery([{ role: "user", content: " Hi " }])).toBe("Hi");
  });

  it("finds the [n] markers that name a source, and ignores numbers that name none", () => {
    expect(citedMarkers("Yes [1], and [2][3]; see [9] or [x].", 3)).toEqual([
      { index: 1, start: 4, end: 7 },
      { index: 2, start: 13, end: 16 },
      { index: 3, start: 16, end: 19 },
    ]);
  });
});

describe("the chat request and llmConfig", () => {
  const issue = (schema: typeof chatBody | typeof llmConfigInput, input: unknown) => {
    const result = schema.safeParse(input);
    return result.success ? null : formatIssue(result.error.issues[0]);
  };

  it("accepts messages with content or the AI SDK's text parts, and a single query", () => {
    const parsed = chatBody.parse({ messages: [{ role: "user", parts: [{ type: "text", text: "a" }, { type: "step-start" }, { type: "text", text: "b" }] }] });
    expect(parsed.messages).toEqual([{ role: "user", content: "ab" }]);
    expect(parsed).toMatchObject({ stream: true, mode: "hybrid", topK: 10, rerank: true });
    expect(chatBody.parse({ query: "refunds?" }).query).toBe("refunds?");
  });

  it("names the field that is wrong", () => {
    expect(issue(chatBody, {})).toMatch(/^messages: give messages/);
    expect(issue(chatBody, { messages: [] })).toMatch(/^messages/);
    expect(issue(chatBody, { messages: [{ role: "user", content: "q" }, { role: "assistant", content: "a" }] })).toMatch(/^messages\.1\.role/);
    expect(issue(chatBody, { messages: [{ role: "user", content: "   " }] })).toMatch(/^messages\.0\.content/);
    expect(issue(chatBody, { query: "q", topK: 5, rerankLimit: 6 })).toMatch(/^rerankLimit/);
    expect(issue(chatBody, { query: "q", maxOutputTokens: CHAT_LIMITS.maxOutputTokens + 1 })).toMatch(/^maxOutputTokens/);
    expect(issue(llmConfigInput, { provider: "OPENAI_COMPATIBLE", baseUrl: "https://x.example/v1?key=1", model: "m" })).toMatch(/^baseUrl/);
    expect(issue(llmConfigInput, { provider: "BEDROCK", model: "" })).toMatch(/^model/);
    // A model name reaches the x-chat-model header: a line break in it is refused, not a 500 later.
    expect(issue(llmConfigInput, { provider: "BEDROCK", model: "amazon.nova-lite-v1:0\r\nSet-Cookie: x=1" })).toMatch(/^model: must be one line/);
    expect(issue(llmConfigInput, { provider: "OPENAI_COMPATIBLE", baseUrl: "https://x.example/v\n1", model: "m" })).toMatch(/^baseUrl: must be one line/);
    expect(issue(llmConfigInput, { provider: "OPENAI_COMPATIBLE", baseUrl: "https://x.example/v1", model: "m", apiKey: "sk-\u0000" })).toMatch(/^apiKey: must be one line/);
    expect(issue(llmConfigInput, { provider: "GEMINI" })).toMatch(/^provider/);
  });

  it("chooses the configured model, else Bedrock's default for the region, else none", () => {
    const deployed = { defaultLlm: "BEDROCK", region: "eu-west-1" };
    expect(chooseChatModel(undefined, deployed)).toEqual({ provider: "BEDROCK", model: "eu.amazon.nova-lite-v1:0" });
    expect(chooseChatModel(undefined, { ...deployed, defaultChatModel: "eu.amazon.nova-pro-v1:0" })).toEqual({ provider: "BEDROCK", model: "eu.amazon.nova-pro-v1:0" });
    expect(chooseChatModel({ provider: "BEDROCK", model: "amazon.nova-micro-v1:0" }, deployed)).toEqual({ provider: "BEDROCK", model: "amazon.nova-micro-v1:0" });
    expect(chooseChatModel(undefined, { defaultLlm: "BEDROCK", region: "sa-east-1" })).toBeNull();
    expect(chooseChatModel(undefined, { defaultLlm: "NONE", region: "us-east-1" })).toBeNull();
    const endpoint = { provider: "OPENAI_COMPATIBLE" as const, baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.2" };
    expect(chooseChatModel(endpoint, { defaultLlm: "NONE", region: "us-east-1" })).toEqual(endpoint);
  });

  it("allows a Bedrock chat model on the list, through any of its cross-Region profiles or ARNs, and nothing else", () => {
    const allowed = chatModelAllowList(null, "eu.anthropic.claude-3-haiku-20240307-v1:0");
    expect(allowed).toEqual([...DEFAULT_CHAT_MODELS, "eu.anthropic.claude-3-haiku-20240307-v1:0"]);
    for (const model of ["amazon.nova-lite-v1:0", "us.amazon.nova-lite-v1:0", "apac.amazon.nova-pro-v1:0", "arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-micro-v1:0", "anthropic.claude-3-haiku-20240307-v1:0"]) {
      expect(isAllowedChatModel(model, allowed), model).toBe(true);
    }
    for (const model of ["anthropic.claude-3-opus-20240229-v1:0", "us.anthropic.claude-opus-4-20250514-v1:0", "amazon.nova-premier-v1:0", "amazon.nova-lite-v1:0x", "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc"]) {
      expect(isAllowedChatModel(model, allowed), model).toBe(false);
    }
    expect(chatModelAllowList(["meta.llama3-70b-instruct-v1:0"], null)).toEqual(["meta.llama3-70b-instruct-v1:0"]);
  });

  it("asks OpenAI itself for max_completion_tokens and compatible servers for max_tokens", () => {
    expect(tokenLimitField(new URL("https://api.openai.com/v1"))).toBe("max_completion_tokens");
    expect(tokenLimitField(new URL("http://127.0.0.1:11434/v1"))).toBe("max_tokens");
    expect(tokenLimitField(new URL("https://my-resource.openai.azure.com/openai/v1"))).toBe("max_tokens");
  });
});
