import { randomUUID } from "node:crypto";
import { constants, createServer, type Http2Server, type Http2ServerResponse } from "node:http2";
import { setTimeout as sleep } from "node:timers/promises";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/core/serde";
import { answer, readJson } from "./aws-json-server.ts";
import { roughTokens, sourceQuotingAnswer, textDeltas } from "./openai-chat-server.ts";
import { relevance } from "./rerank-providers.ts";

/**
 * A Bedrock Runtime endpoint on 127.0.0.1: InvokeModel over HTTP/2 (as the SDK speaks it) for the
 * embedding models the registry offers. It refuses what Bedrock documents it refuses (Titan V2:
 * 50,000 characters and dimensions 256/512/1024; Cohere v3: 1 to 96 texts and a known input type),
 * records every request, and answers each text with a vector derived from its words, so equal
 * texts get equal vectors and search over them works.
 *
 * ConverseStream (`POST /model/{modelId}/converse-stream`) answers in AWS's binary event-stream
 * encoding, as Bedrock does: messageStart, one contentBlockDelta per word, contentBlockStop,
 * messageStop and metadata with usage. It refuses what Converse refuses (no messages, a first turn
 * that is not the user's, roles that do not alternate, a blank or missing text block, a system
 * prompt that is not a list of text blocks), records each conversation, and answers with the same
 * deterministic text as the OpenAI test server (`sourceQuotingAnswer`) unless told otherwise.
 */
export interface BedrockInvocation {
  modelId: string;
  body: Record<string, any>;
}

/** A ConverseStream request: the model id as decoded from the path, and the JSON body. */
export interface BedrockConversation {
  modelId: string;
  body: Record<string, any>;
  /** The stream closed before the answer was complete: the client left (an abort), or a cut fault. */
  clientClosed: boolean;
}

export type ConverseFault =
  /** Answers this status with AWS's error type header (`ThrottlingException`, `AccessDeniedException` ...). */
  | { status: number; errorType: string; message?: string }
  /** Streams this many deltas, then an exception event (`modelStreamErrorException`, `throttlingException` ...). */
  | { exceptionAfterDeltas: number; exception: string; message?: string }
  /** Streams this many deltas, then resets the HTTP/2 stream. */
  | { cutAfterDeltas: number };

export interface BedrockRuntimeStubOptions {
  /** The text ConverseStream answers; default `sourceQuotingAnswer` over the system and messages. */
  converseAnswer?: (conversation: BedrockConversation) => string;
  /** Pause before each contentBlockDelta; default 5 ms. */
  deltaDelayMs?: number;
  /**
   * Tool uses to answer a conversation that offers tools (`toolConfig`) with, instead of text:
   * streamed as Converse streams them (contentBlockStart with the toolUseId and name, the input as
   * JSON text in contentBlockDelta pieces, contentBlockStop), ending with stopReason `tool_use`.
   */
  converseToolUses?: (conversation: BedrockConversation) => { name: string; input: Record<string, unknown> }[] | undefined;
}

export interface BedrockRuntimeStub {
  endpoint: string;
  invocations: BedrockInvocation[];
  /** ConverseStream requests, valid or not. */
  conversations: BedrockConversation[];
  /** The next `times` ConverseStream requests meet `fault`. */
  failNextConverse(fault: ConverseFault, times?: number): void;
  /** Rerank requests (the Agents runtime's `POST /rerank`, served here too: AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME). */
  reranks: Record<string, any>[];
  violations: string[];
  close(): Promise<void>;
}

const TITAN = { maxCharacters: 50_000, dimensions: [256, 512, 1024] };
const COHERE = { maxTexts: 96, inputTypes: ["search_document", "search_query", "classification", "clustering"] };

function vectorOf(text: string, dimension: number): number[] {
  const vector = new Array<number>(dimension).fill(0.001);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
    let hash = 0;
    for (let index = 0; index < word.length; index++) hash = (hash * 31 + word.charCodeAt(index)) >>> 0;
    vector[hash % dimension]! += 1;
  }
  return vector;
}

// Rerank limits from the API reference (RerankRequest, RerankTextDocument) and the models' regions.
const RERANK = {
  maxSources: 1000,
  maxText: 32_000,
  regions: { "amazon.rerank-v1:0": ["ap-northeast-1", "ca-central-1", "eu-central-1", "us-west-2"], "cohere.rerank-v3-5:0": ["ap-northeast-1", "ca-central-1", "eu-central-1", "us-east-1", "us-west-2"] } as Record<string, string[]>,
};

/** Checks a Rerank request as Bedrock would and scores the sources by the query's words. */
function rerank(body: Record<string, any>, signedRegion: string | undefined, refuse: (message: string) => void) {
  const validText = (document: any) => document?.text !== undefined && typeof document.text === "string" && document.text.length >= 1 && document.text.length <= RERANK.maxText;
  if (!Array.isArray(body.queries) || body.queries.length !== 1 || body.queries[0].type !== "TEXT" || !validText(body.queries[0].textQuery)) refuse("queries must be one TEXT query of 1 to 32,000 characters");
  const sources: any[] = Array.isArray(body.sources) ? body.sources : [];
  if (sources.length < 1 || sources.length > RERANK.maxSources) refuse(`${sources.length} sources`);
  for (const source of sources) {
    if (source.type !== "INLINE" || source.inlineDocumentSource?.type !== "TEXT" || !validText(source.inlineDocumentSource.textDocument)) refuse("a source that is not INLINE TEXT of 1 to 32,000 characters");
  }
  const configuration = body.rerankingConfiguration;
  if (configuration?.type !== "BEDROCK_RERANKING_MODEL") refuse(`rerankingConfiguration.type ${configuration?.type}`);
  const settings = configuration?.bedrockRerankingConfiguration;
  const arn = /^arn:aws:bedrock:([a-z0-9-]+)::foundation-model\/(.+)$/.exec(String(settings?.modelConfiguration?.modelArn));
  if (!arn) refuse(`modelArn ${settings?.modelConfiguration?.modelArn}`);
  else if (arn[1] !== signedRegion || !(RERANK.regions[arn[2]!] ?? []).includes(arn[1]!)) refuse(`${arn[2]} is not offered in ${arn[1]} (request signed for ${signedRegion})`);
  const count = settings?.numberOfResults;
  if (count !== undefined && (!Number.isInteger(count) || count < 1 || count > RERANK.maxSources)) refuse(`numberOfResults ${count}`);
  const query = String(body.queries?.[0]?.textQuery?.text ?? "");
  return sources
    .map((source, index) => ({ index, relevanceScore: relevance(query, String(source.inlineDocumentSource?.textDocument?.text ?? "")) }))
    .sort((a, b) => b.relevanceScore - a.relevanceScore)
    .slice(0, count ?? sources.length);
}

// What Converse answers to a conversation it does not accept (ValidationException), or null.
function invalidConversation(body: Record<string, any>): string | null {
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  if (messages.length === 0) return "messages must not be empty";
  if (messages[0]?.role !== "user") return "A conversation must start with a user message. Try again with a conversation that starts with a user message.";
  for (const [index, message] of messages.entries()) {
    if (index > 0 && message?.role === messages[index - 1]?.role) {
      return "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.";
    }
    if (message?.role !== "user" && message?.role !== "assistant") return `messages.${index}.role must be user or assistant`;
    if (!Array.isArray(message.content) || message.content.length === 0) return `messages.${index}.content must not be empty`;
    for (const [block, content] of (message.content as any[]).entries()) {
      if (content?.toolUse !== undefined || content?.toolResult !== undefined) {
        if (body.toolConfig === undefined) return "The toolConfig field must be defined when using toolUse and toolResult content blocks.";
        if (content.toolUse && (message.role !== "assistant" || typeof content.toolUse.toolUseId !== "string" || typeof content.toolUse.name !== "string" || typeof content.toolUse.input !== "object")) {
          return `messages.${index}.content.${block}.toolUse is malformed`;
        }
        if (content.toolResult) {
          if (message.role !== "user" || typeof content.toolResult.toolUseId !== "string" || !Array.isArray(content.toolResult.content)) return `messages.${index}.content.${block}.toolResult is malformed`;
          const asked = (messages[index - 1]?.content ?? []).some((earlier: any) => earlier?.toolUse?.toolUseId === content.toolResult.toolUseId);
          if (!asked) return `messages.${index}.content.${block}.toolResult answers no toolUse of the turn before`;
        }
        continue;
      }
      if (typeof content?.text !== "string" || content.text.trim() === "") return `The text field in the ContentBlock object at messages.${index}.content.${block} is blank. Add text to the text field, and try again.`;
    }
  }
  if (body.toolConfig !== undefined) {
    const tools = body.toolConfig?.tools;
    if (!Array.isArray(tools) || tools.length === 0 || tools.some((tool: any) => typeof tool?.toolSpec?.name !== "string" || typeof tool.toolSpec.inputSchema?.json !== "object")) {
      return "toolConfig.tools must be a non-empty list of {toolSpec: {name, description, inputSchema: {json}}}";
    }
  }
  if (body.system !== undefined && (!Array.isArray(body.system) || !body.system.every((block: any) => typeof block?.text === "string" && block.text.trim() !== ""))) {
    return "system must be a list of non-blank text blocks";
  }
  const maxTokens = body.inferenceConfig?.maxTokens;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) return `inferenceConfig.maxTokens ${maxTokens}`;
  const temperature = body.inferenceConfig?.temperature;
  if (temperature !== undefined && (typeof temperature !== "number" || temperature < 0 || temperature > 1)) return `inferenceConfig.temperature ${temperature}`;
  return null;
}

/** The conversation as chat messages, for the answer function shared with the OpenAI test server. */
function chatMessagesOf(body: Record<string, any>): { role: string; content: string }[] {
  const text = (blocks: any[]) =>
    blocks.map((block) => (block?.toolResult ? (block.toolResult.content as any[]).map((part) => String(part?.text ?? "")).join("") : String(block?.text ?? ""))).join("\n\n");
  return [
    ...(Array.isArray(body.system) ? [{ role: "system", content: text(body.system) }] : []),
    ...(body.messages as any[]).map((message) => ({ role: String(message.role), content: text(message.content) })),
  ];
}

/** The region and service a SigV4 request was signed for, from its credential scope. */
function signedScope(authorization: string | undefined): RegExpExecArray | null {
  return /Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(String(authorization));
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One event-stream message: an event, or an exception the SDK throws while the caller iterates. */
function frame(kind: "event" | "exception", type: string, payload: unknown): Uint8Array {
  const typeHeader = kind === "event" ? ":event-type" : ":exception-type";
  return codec.encode({
    headers: {
      ":message-type": { type: "string", value: kind },
      [typeHeader]: { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

async function converseStream(response: Http2ServerResponse, conversation: BedrockConversation, text: string, delayMs: number, fault: ConverseFault | undefined): Promise<void> {
  const all = textDeltas(text);
  const maxTokens = conversation.body.inferenceConfig?.maxTokens;
  const deltas = Number.isInteger(maxTokens) && maxTokens < all.length ? all.slice(0, maxTokens) : all;
  const stopAt = fault && "exceptionAfterDeltas" in fault ? fault.exceptionAfterDeltas : fault && "cutAfterDeltas" in fault ? fault.cutAfterDeltas : Infinity;
  response.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": randomUUID() });
  // Each frame is flushed before the next step, so a reset comes after the deltas it follows.
  const send = (bytes: Uint8Array) => new Promise<void>((resolve) => response.write(bytes, () => resolve()));
  await send(frame("event", "messageStart", { role: "assistant" }));
  for (const [index, piece] of deltas.entries()) {
    if (index >= stopAt) break;
    await sleep(delayMs);
    if (response.stream.destroyed) return;
    await send(frame("event", "contentBlockDelta", { contentBlockIndex: 0, delta: { text: piece } }));
  }
  if (fault && "cutAfterDeltas" in fault) return void response.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  if (fault && "exceptionAfterDeltas" in fault) {
    response.end(frame("exception", fault.exception, { message: fault.message ?? `${fault.exception} from the test stub` }));
    return;
  }
  const inputTokens = roughTokens(chatMessagesOf(conversation.body).map((message) => message.content).join("\n"));
  await send(frame("event", "contentBlockStop", { contentBlockIndex: 0 }));
  await send(frame("event", "messageStop", { stopReason: deltas.length < all.length ? "max_tokens" : "end_turn" }));
  response.end(
    frame("event", "metadata", { usage: { inputTokens, outputTokens: deltas.length, totalTokens: inputTokens + deltas.length }, metrics: { latencyMs: 1 } }),
  );
}

async function converseToolUseStream(response: Http2ServerResponse, uses: { name: string; input: Record<string, unknown> }[], delayMs: number): Promise<void> {
  response.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": randomUUID() });
  const send = (bytes: Uint8Array) => new Promise<void>((resolve) => response.write(bytes, () => resolve()));
  await send(frame("event", "messageStart", { role: "assistant" }));
  for (const [contentBlockIndex, use] of uses.entries()) {
    await sleep(delayMs);
    await send(frame("event", "contentBlockStart", { contentBlockIndex, start: { toolUse: { toolUseId: `tooluse_${randomUUID().slice(0, 12)}`, name: use.name } } }));
    const json = JSON.stringify(use.input);
    const half = Math.ceil(json.length / 2);
    for (const piece of [json.slice(0, half), json.slice(half)]) {
      await send(frame("event", "contentBlockDelta", { contentBlockIndex, delta: { toolUse: { input: piece } } }));
    }
    await send(frame("event", "contentBlockStop", { contentBlockIndex }));
  }
  await send(frame("event", "messageStop", { stopReason: "tool_use" }));
  response.end(frame("event", "metadata", { usage: { inputTokens: 10, outputTokens: 10 * uses.length, totalTokens: 10 + 10 * uses.length }, metrics: { latencyMs: 1 } }));
}

export async function startBedrockRuntimeStub(options: BedrockRuntimeStubOptions = {}): Promise<BedrockRuntimeStub> {
  const invocations: BedrockInvocation[] = [];
  const reranks: Record<string, any>[] = [];
  const conversations: BedrockConversation[] = [];
  const converseFaults: ConverseFault[] = [];
  const violations: string[] = [];
  const answerOf = options.converseAnswer ?? ((conversation: BedrockConversation) => sourceQuotingAnswer(chatMessagesOf(conversation.body)));
  const server: Http2Server = createServer(async (request, response) => {
    const { body } = await readJson(request);
    const converse = /^\/model\/([^/]+)\/converse-stream$/.exec(request.url ?? "");
    if (converse) {
      const conversation: BedrockConversation = { modelId: decodeURIComponent(converse[1]!), body, clientClosed: false };
      conversations.push(conversation);
      response.on("close", () => {
        // writableFinished is already true on a stream the client reset; writableEnded is not.
        if (!response.writableEnded) conversation.clientClosed = true;
      });
      const scope = signedScope(request.headers.authorization);
      if (scope?.[2] !== "bedrock") violations.push(`Bedrock ConverseStream: signed for service ${scope?.[2]}`);
      const invalid = invalidConversation(body);
      if (invalid) {
        violations.push(`Bedrock ConverseStream ${conversation.modelId}: ${invalid}`);
        return answer(response, 400, { message: invalid }, "ValidationException");
      }
      const fault = converseFaults.shift();
      if (fault && "status" in fault) return answer(response, fault.status, { message: fault.message ?? `${fault.errorType} from the test stub` }, fault.errorType);
      const uses = body.toolConfig ? (options.converseToolUses?.(conversation) ?? []) : [];
      if (uses.length > 0) return converseToolUseStream(response, uses, options.deltaDelayMs ?? 5);
      return converseStream(response, conversation, answerOf(conversation), options.deltaDelayMs ?? 5, fault);
    }
    if (request.url === "/rerank") {
      reranks.push(body);
      const scope = signedScope(request.headers.authorization);
      if (scope?.[2] !== "bedrock") violations.push(`Bedrock Rerank: signed for service ${scope?.[2]}`);
      const before = violations.length;
      const results = rerank(body, scope?.[1], (message) => violations.push(`Bedrock Rerank: ${message}`));
      if (violations.length > before) return answer(response, 400, { message: violations.at(-1) }, "ValidationException");
      return answer(response, 200, { results });
    }
    const modelId = decodeURIComponent((request.url ?? "").split("/")[2] ?? "");
    invocations.push({ modelId, body });
    const refuse = (message: string) => violations.push(`Bedrock ${modelId}: ${message}`);
    if (modelId.startsWith("amazon.titan-embed-text-v2")) {
      if (typeof body.inputText !== "string" || body.inputText.length > TITAN.maxCharacters) refuse(`inputText of ${body.inputText?.length} characters`);
      if (!TITAN.dimensions.includes(body.dimensions)) refuse(`dimensions ${body.dimensions}`);
      return answer(response, 200, { embedding: vectorOf(String(body.inputText), body.dimensions), inputTextTokenCount: Math.ceil(String(body.inputText).length / 4) });
    }
    if (modelId.startsWith("cohere.embed")) {
      if (!Array.isArray(body.texts) || body.texts.length < 1 || body.texts.length > COHERE.maxTexts) refuse(`${body.texts?.length} texts`);
      if (!COHERE.inputTypes.includes(body.input_type)) refuse(`input_type ${body.input_type}`);
      return answer(response, 200, { embeddings: (body.texts as string[]).map((text) => vectorOf(text, 1024)) });
    }
    refuse("a model the stub does not know");
    return answer(response, 400, { message: "unknown model" }, "ValidationException");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    invocations,
    conversations,
    failNextConverse: (fault, times = 1) => {
      for (let count = 0; count < times; count++) converseFaults.push(fault);
    },
    reranks,
    violations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
