import dns, { type LookupAddress } from "node:dns";
import { syncBuiltinESMExports } from "node:module";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chatModelFor } from "../../functions/shared/llm/index.ts";
import { ChatError, type ChatDelta, type ChatMessage, type ChatOptions } from "../../functions/shared/llm/types.ts";
import { startBedrockRuntimeStub, type BedrockRuntimeStub } from "../support/bedrock-runtime.ts";
import { roughTokens, sourceQuotingAnswer, startOpenAiChatServer, textDeltas, type OpenAiChatServer } from "../support/openai-chat-server.ts";

// A name that resolves to loopback, as a rebinding attacker's name would: only the guard's own
// resolver call is answered here, everything else resolves as usual.
const REBINDING_HOST = "model.rebinding.test";
// Patched on the module itself, not with vi.mock: unit files share one module graph per worker
// (vitest.config.ts), so the guard may have imported node:dns before this file runs.
const originalLookup = dns.lookup;
beforeAll(() => {
  dns.lookup = ((hostname: string, options: object, callback: (error: Error | null, addresses: LookupAddress[]) => void) => {
    if (hostname === REBINDING_HOST) return callback(null, [{ address: "127.0.0.1", family: 4 }]);
    return (originalLookup as (...args: unknown[]) => void)(hostname, options, callback);
  }) as typeof dns.lookup;
  syncBuiltinESMExports();
});
afterAll(() => {
  dns.lookup = originalLookup;
  syncBuiltinESMExports();
});

const QUESTION = "How are refunds for damaged parcels approved?";
const CONVERSATION: ChatMessage[] = [
  { role: "system", content: "Answer from the sources and cite them.\n[1] Holiday requests go to team managers.\n[2] The returns desk approves refunds." },
  { role: "user", content: QUESTION },
];
const EXPECTED = sourceQuotingAnswer(CONVERSATION);
const API_KEY = "sk-test-right-key-0123456789";

const savedEnv: Record<string, string | undefined> = {};
function setEnv(name: string, value: string | undefined): void {
  if (!(name in savedEnv)) savedEnv[name] = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

async function collect(stream: AsyncIterable<ChatDelta>): Promise<{ deltas: ChatDelta[]; error?: unknown }> {
  const deltas: ChatDelta[] = [];
  try {
    for await (const delta of stream) deltas.push(delta);
    return { deltas };
  } catch (error) {
    return { deltas, error };
  }
}

function textOf(deltas: ChatDelta[]): string {
  return deltas.map((delta) => (delta.type === "text" ? delta.text : "")).join("");
}

function finishes(deltas: ChatDelta[]) {
  return deltas.filter((delta) => delta.type === "finish");
}

/** Aborts once the first text arrived; returns what came before the stream stopped. */
async function abortAfterFirstText(stream: (options: ChatOptions) => AsyncIterable<ChatDelta>) {
  const controller = new AbortController();
  const deltas: ChatDelta[] = [];
  let error: unknown;
  try {
    for await (const delta of stream({ signal: controller.signal })) {
      deltas.push(delta);
      if (delta.type === "text") controller.abort();
    }
  } catch (caught) {
    error = caught;
  }
  return { deltas, error };
}

async function eventually(check: () => boolean, timeoutMs = 2_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

afterAll(() => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("OpenAI-compatible chat model", () => {
  let server: OpenAiChatServer;
  let open: OpenAiChatServer;
  let slow: OpenAiChatServer;
  const model = (apiKey?: string, baseUrl = server.baseUrl) => chatModelFor({ provider: "OPENAI_COMPATIBLE", baseUrl, model: "gpt-test", apiKey });

  // The servers are on 127.0.0.1, as on the local stack; one test turns the guard back on. The
  // file-URL switch would loosen the same guard, so it stays off.
  const allowLoopback = () => {
    setEnv("ALLOW_PRIVATE_MODEL_URLS", "true");
    setEnv("ALLOW_PRIVATE_FILE_URLS", undefined);
  };

  beforeAll(async () => {
    allowLoopback();
    server = await startOpenAiChatServer({ apiKey: API_KEY, models: ["gpt-test"] });
    open = await startOpenAiChatServer();
    slow = await startOpenAiChatServer({ deltaDelayMs: 40, answer: () => "word ".repeat(100) });
  });
  afterAll(async () => {
    await Promise.all([server.close(), open.close(), slow.close()]);
  });
  afterEach(() => {
    allowLoopback();
    server.requests.length = 0;
  });

  it("streams the answer in several text deltas, in order, then exactly one finish with the reported usage", async () => {
    const chat = await model(API_KEY);
    const arrivals: number[] = [];
    const deltas: ChatDelta[] = [];
    for await (const delta of chat.stream(CONVERSATION)) {
      deltas.push(delta);
      arrivals.push(Date.now());
    }
    expect(chat.model).toBe("gpt-test");
    expect(textOf(deltas)).toBe(EXPECTED);
    expect(EXPECTED).toContain("[1]");
    const texts = deltas.filter((delta) => delta.type === "text");
    expect(texts.map((delta) => delta.text)).toEqual(textDeltas(EXPECTED));
    // Streamed, not buffered: the deltas arrive spread over the server's pauses between them.
    expect(arrivals[texts.length - 1]! - arrivals[0]!).toBeGreaterThanOrEqual(20);
    expect(deltas.at(-1)).toEqual({
      type: "finish",
      reason: "stop",
      usage: { inputTokens: roughTokens(CONVERSATION.map((message) => message.content).join("\n")), outputTokens: texts.length },
    });
    expect(finishes(deltas)).toHaveLength(1);
  });

  it("posts model, messages, stream with usage, the output limits and the bearer key", async () => {
    const chat = await model(API_KEY);
    await collect(chat.stream(CONVERSATION, { maxOutputTokens: 300, temperature: 0.2 }));
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.path).toBe("/v1/chat/completions");
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.body).toEqual({
      model: "gpt-test",
      messages: CONVERSATION,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 300,
      temperature: 0.2,
    });
    expect(server.violations).toEqual([]);
  });

  it("sends no Authorization header when no key is configured, and tolerates a base URL with a trailing slash", async () => {
    const chat = await model(undefined, `${open.baseUrl}/`);
    const { deltas, error } = await collect(chat.stream(CONVERSATION));
    expect(error).toBeUndefined();
    expect(textOf(deltas)).toBe(EXPECTED);
    expect(open.requests.at(-1)!.path).toBe("/v1/chat/completions");
    expect(open.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it("reports finish reason length when the answer reaches max_tokens", async () => {
    const { deltas } = await collect((await model(API_KEY)).stream(CONVERSATION, { maxOutputTokens: 3 }));
    expect(deltas.filter((delta) => delta.type === "text")).toHaveLength(3);
    expect(deltas.at(-1)).toMatchObject({ type: "finish", reason: "length", usage: { outputTokens: 3 } });
  });

  it("retries a 429 after the Retry-After it names, then streams the answer", async () => {
    server.failNext({ status: 429, retryAfter: "1", body: { error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } } });
    const waits: number[] = [];
    const { deltas, error } = await collect((await model(API_KEY)).stream(CONVERSATION, { wait: async (ms) => void waits.push(ms) }));
    expect(error).toBeUndefined();
    expect(waits).toEqual([1_000]);
    expect(server.requests).toHaveLength(2);
    expect(textOf(deltas)).toBe(EXPECTED);
  });

  it("gives up after three attempts at a server error and says so", async () => {
    server.failNext({ status: 503, retryAfter: "0" }, 3);
    const { deltas, error } = await collect((await model(API_KEY)).stream(CONVERSATION));
    expect(deltas).toEqual([]);
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toMatch(/failed with HTTP 503.*gave up after 3 attempts/);
    expect((error as ChatError).options).toEqual({ status: 503, retryable: true });
    expect(server.requests).toHaveLength(3);
  });

  it("says a rejected key was rejected without echoing it, and does not retry", async () => {
    const wrongKey = "sk-test-wrong-key-9876543210";
    const { error } = await collect((await model(wrongKey)).stream(CONVERSATION));
    expect(error).toBeInstanceOf(ChatError);
    const { message, options, provider } = error as ChatError;
    expect(provider).toBe("OPENAI_COMPATIBLE");
    expect(message).toMatch(/rejected the API key \(HTTP 401\)/);
    expect(message).not.toContain(wrongKey);
    expect(message).not.toContain("wrong-key");
    expect(options).toEqual({ status: 401, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it("says the model was not found on a 404", async () => {
    const chat = await chatModelFor({ provider: "OPENAI_COMPATIBLE", baseUrl: server.baseUrl, model: "gpt-missing", apiKey: API_KEY });
    const { error } = await collect(chat.stream(CONVERSATION));
    expect((error as ChatError).message).toMatch(/did not find the model gpt-missing \(HTTP 404\).*does not exist/);
    expect((error as ChatError).options.retryable).toBe(false);
  });

  it("shows the provider's own message for other refusals, with anything key-shaped removed", async () => {
    server.failNext({ status: 400, body: { error: { message: `Invalid 'messages': context too long for key ${API_KEY} (sk-other-secret-abcdef123456)` } } });
    const { error } = await collect((await model(API_KEY)).stream(CONVERSATION));
    const { message } = error as ChatError;
    expect(message).toMatch(/refused the request \(HTTP 400\): Invalid 'messages': context too long/);
    expect(message).not.toContain(API_KEY);
    expect(message).not.toContain("sk-other-secret");
    expect(server.requests).toHaveLength(1);
  });

  it("fails with a ChatError when the connection is cut after text arrived, without asking again", async () => {
    server.failNext({ cutAfterDeltas: 2 });
    const { deltas, error } = await collect((await model(API_KEY)).stream(CONVERSATION));
    expect(textOf(deltas)).toBe(textDeltas(EXPECTED).slice(0, 2).join(""));
    expect(finishes(deltas)).toEqual([]);
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toMatch(/broke off the answer/);
    expect(server.requests).toHaveLength(1);
  });

  it("asks again when the connection is cut before any text", async () => {
    server.failNext({ cutAfterDeltas: 0 });
    const { deltas, error } = await collect((await model(API_KEY)).stream(CONVERSATION));
    expect(error).toBeUndefined();
    expect(textOf(deltas)).toBe(EXPECTED);
    expect(server.requests).toHaveLength(2);
  });

  it("treats a body that ends without a finish reason or [DONE] as a truncated answer", async () => {
    server.failNext({ endAfterDeltas: 3 });
    const { deltas, error } = await collect((await model(API_KEY)).stream(CONVERSATION));
    expect(deltas.filter((delta) => delta.type === "text")).toHaveLength(3);
    expect(finishes(deltas)).toEqual([]);
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toMatch(/ended the answer before it was complete/);
    expect((error as ChatError).options.retryable).toBe(true);
  });

  it("turns an error event in the middle of the stream into a ChatError with the provider's message", async () => {
    server.failNext({ errorAfterDeltas: 1, error: { message: "The server had an error while processing your request.", type: "server_error" } });
    const { deltas, error } = await collect((await model(API_KEY)).stream(CONVERSATION));
    expect(deltas).toHaveLength(1);
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toMatch(/reported an error during the answer: The server had an error while processing your request/);
  });

  it("refuses a base URL on a loopback address unless ALLOW_PRIVATE_MODEL_URLS is true, before any request", async () => {
    setEnv("ALLOW_PRIVATE_MODEL_URLS", undefined);
    for (const baseUrl of [server.baseUrl, server.baseUrl.replace("127.0.0.1", "localhost"), server.baseUrl.replace("127.0.0.1", "[::1]")]) {
      const { error } = await collect((await model(API_KEY, baseUrl)).stream(CONVERSATION));
      expect(error, baseUrl).toBeInstanceOf(ChatError);
      expect((error as ChatError).message).toMatch(/^Refused to call .*: the URL points at (this machine|a private, loopback)/);
      expect((error as ChatError).options.retryable).toBe(false);
    }
    expect(server.requests).toEqual([]);
  });

  it("refuses at connection time a name that resolves to a loopback address", async () => {
    setEnv("ALLOW_PRIVATE_MODEL_URLS", "false");
    const baseUrl = server.baseUrl.replace("127.0.0.1", REBINDING_HOST);
    const { error } = await collect((await model(API_KEY, baseUrl)).stream(CONVERSATION));
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toMatch(/refused to connect to model\.rebinding\.test: it resolves to 127\.0\.0\.1/);
    expect((error as ChatError).options.retryable).toBe(false);
    expect(server.requests).toEqual([]);
  });

  it("stops the stream and closes the connection when the signal aborts", async () => {
    const chat = await model(undefined, slow.baseUrl);
    const { deltas, error } = await abortAfterFirstText((options) => chat.stream(CONVERSATION, options));
    expect(deltas).toHaveLength(1);
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toMatch(/cancelled/);
    expect(await eventually(() => slow.requests.at(-1)?.clientClosed === true)).toBe(true);
    expect(slow.requests).toHaveLength(1);
  });
});

describe("OpenAI chat test server", () => {
  it("answers a request without stream as one chat.completion document", async () => {
    const server = await startOpenAiChatServer();
    try {
      const response = await fetch(`${server.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: CONVERSATION }),
      });
      const body = (await response.json()) as any;
      expect(body.object).toBe("chat.completion");
      expect(body.choices[0]).toMatchObject({ message: { role: "assistant", content: EXPECTED }, finish_reason: "stop" });
      expect(body.usage.completion_tokens).toBe(textDeltas(EXPECTED).length);
    } finally {
      await server.close();
    }
  });
});

describe("Bedrock chat model", () => {
  const MODEL = "us.amazon.nova-lite-v1:0";
  let stub: BedrockRuntimeStub;
  let answerText: string | undefined;
  const model = () => chatModelFor({ provider: "BEDROCK", model: MODEL });

  beforeAll(async () => {
    stub = await startBedrockRuntimeStub({ converseAnswer: (conversation) => answerText ?? sourceQuotingAnswer(chatMessages(conversation.body)) });
    // Read when the provider creates its one client, on its first call.
    setEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", stub.endpoint);
    setEnv("AWS_REGION", "us-east-1");
    setEnv("AWS_ACCESS_KEY_ID", "test");
    setEnv("AWS_SECRET_ACCESS_KEY", "test");
    setEnv("AWS_SESSION_TOKEN", undefined);
    setEnv("AWS_PROFILE", undefined);
  });
  afterAll(() => stub.close());
  afterEach(() => {
    answerText = undefined;
    stub.conversations.length = 0;
  });

  function chatMessages(body: Record<string, any>) {
    return [...(body.system ?? []).map((block: any) => ({ role: "system", content: block.text })), ...body.messages.map((message: any) => ({ role: message.role, content: message.content[0].text }))];
  }

  it("streams the answer in several text deltas, in order, then exactly one finish with the reported usage", async () => {
    const chat = await model();
    const { deltas, error } = await collect(chat.stream(CONVERSATION));
    expect(error).toBeUndefined();
    expect(chat.model).toBe(MODEL);
    expect(textOf(deltas)).toBe(EXPECTED);
    const texts = deltas.filter((delta) => delta.type === "text");
    expect(texts.map((delta) => delta.text)).toEqual(textDeltas(EXPECTED));
    expect(deltas.at(-1)).toEqual({
      type: "finish",
      reason: "stop",
      usage: { inputTokens: roughTokens(CONVERSATION.map((message) => message.content).join("\n")), outputTokens: texts.length },
    });
    expect(finishes(deltas)).toHaveLength(1);
    expect(stub.conversations[0]!.modelId).toBe(MODEL);
    expect(stub.violations).toEqual([]);
  });

  it("sends system prompts apart, merges same-role turns, drops a leading assistant turn, and is signed for bedrock", async () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "assistant", content: "Hello! What would you like to know?" },
      { role: "user", content: "About refunds." },
      { role: "user", content: QUESTION },
      { role: "assistant", content: "The returns desk [2]." },
      { role: "assistant", content: "Within two days." },
      { role: "system", content: "[2] The returns desk approves refunds." },
      { role: "user", content: "And exchanges?" },
    ];
    const { error } = await collect((await model()).stream(messages, { maxOutputTokens: 400, temperature: 0.3 }));
    expect(error).toBeUndefined();
    expect(stub.conversations).toHaveLength(1);
    expect(stub.conversations[0]!.body).toEqual({
      system: [{ text: "Be brief." }, { text: "[2] The returns desk approves refunds." }],
      messages: [
        { role: "user", content: [{ text: `About refunds.\n\n${QUESTION}` }] },
        { role: "assistant", content: [{ text: "The returns desk [2].\n\nWithin two days." }] },
        { role: "user", content: [{ text: "And exchanges?" }] },
      ],
      inferenceConfig: { maxTokens: 400, temperature: 0.3 },
    });
    // The stub records a request that Bedrock would refuse, or one signed for another service.
    expect(stub.violations).toEqual([]);
  });

  it("reports finish reason length when the answer reaches maxTokens", async () => {
    const { deltas } = await collect((await model()).stream(CONVERSATION, { maxOutputTokens: 2 }));
    expect(deltas.filter((delta) => delta.type === "text")).toHaveLength(2);
    expect(deltas.at(-1)).toMatchObject({ type: "finish", reason: "length", usage: { outputTokens: 2 } });
  });

  it("retries one throttled request, then reports throttling as a retryable ChatError naming the model", async () => {
    stub.failNextConverse({ status: 429, errorType: "ThrottlingException", message: "Too many requests, please wait before trying again." });
    const first = await collect((await model()).stream(CONVERSATION));
    expect(first.error).toBeUndefined();
    expect(textOf(first.deltas)).toBe(EXPECTED);
    expect(stub.conversations).toHaveLength(2);

    stub.failNextConverse({ status: 429, errorType: "ThrottlingException", message: "Too many requests, please wait before trying again." }, 2);
    const second = await collect((await model()).stream(CONVERSATION));
    expect(second.error).toBeInstanceOf(ChatError);
    const error = second.error as ChatError;
    expect(error.provider).toBe("BEDROCK");
    expect(error.message).toBe(`Bedrock ${MODEL} failed: ThrottlingException: Too many requests, please wait before trying again.`);
    expect(error.options).toEqual({ status: 429, retryable: true });
  });

  it("says the account may not have access to the model when Bedrock denies access", async () => {
    stub.failNextConverse({ status: 403, errorType: "AccessDeniedException", message: "User: arn:aws:sts::123456789012:assumed-role/chat-role is not authorized" });
    const { error } = await collect((await model()).stream(CONVERSATION));
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toMatch(new RegExp(`${MODEL.replace(/[.:]/g, "\\$&")}.*account may not have access to that model in Bedrock.*AccessDeniedException`));
    expect((error as ChatError).message).not.toContain("123456789012");
    expect((error as ChatError).options).toEqual({ status: 403, retryable: false });
  });

  it("turns an exception event in the middle of the stream into a ChatError after the text so far", async () => {
    stub.failNextConverse({ exceptionAfterDeltas: 2, exception: "modelStreamErrorException", message: "The model stopped unexpectedly." });
    const { deltas, error } = await collect((await model()).stream(CONVERSATION));
    expect(textOf(deltas)).toBe(textDeltas(EXPECTED).slice(0, 2).join(""));
    expect(finishes(deltas)).toEqual([]);
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toBe(`Bedrock ${MODEL} failed: ModelStreamErrorException: The model stopped unexpectedly.`);
    expect((error as ChatError).options.retryable).toBe(true);
  });

  it("fails with a ChatError when the stream is reset mid-answer", async () => {
    stub.failNextConverse({ cutAfterDeltas: 1 });
    const { deltas, error } = await collect((await model()).stream(CONVERSATION));
    expect(deltas.filter((delta) => delta.type === "text")).toHaveLength(1);
    expect(finishes(deltas)).toEqual([]);
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toContain(`Bedrock ${MODEL}`);
  });

  it("stops the stream and closes it when the signal aborts", async () => {
    answerText = "word ".repeat(200);
    const chat = await model();
    const { deltas, error } = await abortAfterFirstText((options) => chat.stream(CONVERSATION, options));
    expect(deltas).toHaveLength(1);
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toMatch(/cancelled/);
    expect(await eventually(() => stub.conversations.at(-1)?.clientClosed === true)).toBe(true);
  });

  it("refuses a conversation with nothing for the model to answer, without calling Bedrock", async () => {
    const { error } = await collect((await model()).stream([{ role: "system", content: "Be brief." }, { role: "assistant", content: "Hi." }]));
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).message).toMatch(/no user message/);
    expect(stub.conversations).toEqual([]);
  });
});
