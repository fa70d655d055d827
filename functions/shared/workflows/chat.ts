import { AGENT_LIMITS, CHAT_LIMITS, type ChatRequest, type ChatSource, conversationOf, numberSources, promptMessages, retrievalQuery } from "../domain/chat.ts";
import { getHosting } from "../db/hosting.ts";
import { busy, unprocessable } from "../domain/errors.ts";
import { citedHit } from "../domain/hosted/page.ts";
import { assertChatModelAllowed, chatModelHere, type LlmConfig } from "../domain/llm-config.ts";
import { hostingChatModel, type HostingRecord } from "../domain/hosting.ts";
import type { NamespaceRecord } from "../domain/namespace.ts";
import type { SearchRequest } from "../domain/search.ts";
import { chatModelFor } from "../llm/index.ts";
import { ChatError, type ChatMessage, type FinishReason } from "../llm/types.ts";
import { logger } from "../platform/logger.ts";
import { type RerankOutcome, rerankResults } from "./rerank.ts";
import { search } from "./search.ts";
import { expandHits, passageWindow } from "./expansion.ts";
import { type AgentEvent, runAgent } from "./agentic-chat.ts";

/**
 * A retrieval-augmented answer, single-shot: the latest question (with the one before, when it is a
 * short follow-up) is searched once (hybrid by default, reranked), the best chunks are numbered and given to the model with the prompt, and the
 * model answers citing them as [n]. Single-shot rather than agentic (the model calling search
 * tools) because it costs one retrieval and one model call per question, bounded and predictable,
 * and works with any chat model, including small local ones without tool calling.
 */
export interface ChatInput {
  conversation: ChatMessage[];
  /** Search settings; `query` is replaced by the latest question. */
  retrieval: SearchRequest;
  systemPrompt?: string | null;
  llmConfig?: LlmConfig;
  /** The hosting's citation path: each source's citation is the chunk metadata's value there. */
  citationMetadataPath?: string | null;
  maxOutputTokens?: number;
  temperature?: number;
  /** The model searches with tools for up to this many rounds before it answers (agentic chat); absent, single-shot. */
  toolRounds?: number;
}

export interface StartedAnswer {
  sources: ChatSource[];
  /** `provider:model`, as `x-rerank-model` names rerankers. */
  model: string;
  rerank: RerankOutcome | null;
  /** Agentic answers fill `sources` as the model's searches find them, and report tool calls among the deltas. */
  agentic: boolean;
  /** The model's answer; its first delta has already arrived, so a failure to start was thrown instead. */
  deltas: AsyncIterable<AgentEvent>;
  /** Ends the model's request early (the client went away). */
  abort(): void;
}

const DEFAULT_MAX_OUTPUT_TOKENS = 1024;

/**
 * A caller's chat (`POST /v1/namespace/{id}/chat`): the request's model and prompt, else the
 * namespace's hosting's (so an owner configures a key once), else the deployment's default.
 */
export async function answerCaller(namespace: NamespaceRecord, tenantId: string | null, request: ChatRequest): Promise<StartedAnswer> {
  // Also for its citation path, so one read even when the request names model and prompt.
  const hosting = await getHosting(namespace.id);
  const { messages: _messages, query: _query, stream: _stream, systemPrompt, llmConfig: requested, maxOutputTokens, temperature, agentic, maxToolRounds, ...retrieval } = request;
  const llmConfig = requested ?? (hosting ? hostingChatModel(hosting) : undefined);
  const toolRounds = toolRoundsOf(hosting, agentic, maxToolRounds);
  return startAnswer(namespace, tenantId, {
    conversation: conversationOf(request),
    retrieval: { ...retrieval, query: "", includeMetadata: true },
    systemPrompt: systemPrompt ?? hosting?.systemPrompt ?? null,
    ...(llmConfig ? { llmConfig } : {}),
    citationMetadataPath: hosting?.citationMetadataPath ?? null,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(toolRounds !== undefined ? { toolRounds } : {}),
  });
}

/**
 * The tool rounds a chat gets, absent for single-shot: agentic when the request says so, without a
 * word from it when the hosting's chat mode is; the request's `maxToolRounds`, else the default.
 */
export function toolRoundsOf(hosting: Pick<HostingRecord, "chatMode"> | null, agentic?: boolean, maxToolRounds?: number): number | undefined {
  return (agentic ?? hosting?.chatMode === "agentic") ? (maxToolRounds ?? AGENT_LIMITS.defaultToolRounds) : undefined;
}

/**
 * Retrieves, prompts and starts the model. Everything that can be refused is refused here, before
 * a response has begun: no model configured (422 naming `llmConfig`), a model that rejects the
 * configuration or that nothing answers at its address (422, "no model reachable") or is busy (429, try again).
 */
export async function startAnswer(namespace: NamespaceRecord, tenantId: string | null, input: ChatInput): Promise<StartedAnswer> {
  assertChatModelAllowed(input.llmConfig);
  const choice = chatModelHere(input.llmConfig);
  if (!choice) {
    throw unprocessable("llmConfig: no language model is configured for chat here; set llmConfig (Amazon Bedrock or an OpenAI-compatible endpoint) on the hosting or in the request.");
  }
  const label = `${choice.provider.toLowerCase()}:${choice.model}`;
  if (input.toolRounds !== undefined) return startAgent(namespace, tenantId, input, choice, label, input.toolRounds);
  const retrieval: SearchRequest = { ...input.retrieval, query: retrievalQuery(input.conversation).slice(0, 10_000), includeMetadata: true };
  const { results, outcome } = await rerankResults(namespace, retrieval, await search(namespace, tenantId, retrieval));
  const hits = retrieval.expand ? (await expandHits(namespace, tenantId, results, retrieval.expand)).map((hit) => ({ ...hit, text: passageWindow(hit.passage, CHAT_LIMITS.sourceLength) })) : results;
  const sources = numberSources(hits.map((result) => citedHit(result, input.citationMetadataPath ?? null)));
  const model = await chatModelFor(choice);
  const controller = new AbortController();
  const stream = model.stream(promptMessages(input.systemPrompt, sources, input.conversation), {
    maxOutputTokens: input.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
    signal: controller.signal,
  });
  return { sources, model: label, rerank: outcome, agentic: false, ...(await firstArrived(stream, label, namespace.id, controller)) };
}

/** The agentic answer: started once the model's first round has produced something, like single-shot. */
async function startAgent(namespace: NamespaceRecord, tenantId: string | null, input: ChatInput, choice: NonNullable<ReturnType<typeof chatModelHere>>, label: string, rounds: number): Promise<StartedAnswer> {
  const model = await chatModelFor(choice);
  const controller = new AbortController();
  const sources: ChatSource[] = [];
  const events = runAgent(
    model,
    { namespace, tenantId, retrieval: { ...input.retrieval, includeMetadata: true }, citationMetadataPath: input.citationMetadataPath ?? null, sources },
    {
      systemPrompt: input.systemPrompt,
      conversation: input.conversation,
      rounds,
      maxOutputTokens: input.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
      signal: controller.signal,
    },
  );
  return { sources, model: label, rerank: null, agentic: true, ...(await firstArrived(events, label, namespace.id, controller)) };
}

/**
 * Waits for the answer's first event, so a model that refuses is still an HTTP error (not a broken
 * stream), then hands on the whole answer, capped, with the way to end the model's request.
 */
async function firstArrived(events: AsyncIterable<AgentEvent>, label: string, namespaceId: string, controller: AbortController): Promise<Pick<StartedAnswer, "deltas" | "abort">> {
  const iterator = events[Symbol.asyncIterator]();
  let first: IteratorResult<AgentEvent>;
  try {
    first = await iterator.next();
  } catch (error) {
    throw refusalOf(error, label, namespaceId);
  }
  const abort = () => controller.abort();
  return { deltas: capped(resumed(first, iterator), abort), abort };
}

async function* resumed<T>(first: IteratorResult<T>, rest: AsyncIterator<T>): AsyncGenerator<T> {
  if (first.done) return;
  yield first.value;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/**
 * Characters of one answer: far above what CHAT_LIMITS.maxOutputTokens produce (about four
 * characters a token), so only an endpoint that ignores the limit reaches it. Past it the answer
 * ends as `length` and the model's request is stopped, so a misbehaving endpoint cannot fill the
 * function's memory (a whole answer is held to be returned, and the stream's citations are found in it).
 */
export const MAX_ANSWER_CHARACTERS = 65_536;

async function* capped(deltas: AsyncIterable<AgentEvent>, abort: () => void): AsyncGenerator<AgentEvent> {
  let length = 0;
  for await (const delta of deltas) {
    if (delta.type !== "text") {
      yield delta;
      continue;
    }
    const room = MAX_ANSWER_CHARACTERS - length;
    length += delta.text.length;
    if (length <= MAX_ANSWER_CHARACTERS) {
      yield delta;
      continue;
    }
    if (room > 0) yield { type: "text", text: delta.text.slice(0, room) };
    abort();
    yield { type: "finish", reason: "length" };
    return;
  }
}

/**
 * A model that failed before answering: the owner's configuration (422), including an address where
 * no model listens (a 429 would read as the caller's rate limit), or a passing condition (429).
 */
function refusalOf(error: unknown, model: string, namespaceId: string): Error {
  if (!(error instanceof ChatError)) return error as Error;
  logger.warn("the language model did not answer", { namespaceId, model, error: error.message, status: error.options.status });
  if (error.options.unreachable) {
    return unprocessable(`llmConfig: no model reachable: ${error.message}. Check the model's address in llmConfig, or start the model server.`);
  }
  if (error.options.retryable) {
    return busy(`The language model (${model}) is busy: ${error.message}. Try again shortly.`);
  }
  return unprocessable(`llmConfig: the language model (${model}) refused the request: ${error.message}`);
}

export interface AnswerToolCall {
  id: string;
  name: string;
  input: unknown;
  output?: unknown;
  error?: string;
}

export interface WholeAnswer {
  text: string;
  finishReason: FinishReason;
  usage?: { inputTokens: number; outputTokens: number };
  /** Agentic answers: the tools the model called, in order, with what they returned. */
  toolCalls?: AnswerToolCall[];
}

/**
 * Collects a started answer; a failure part-way is refused like a failure to start (the answer
 * would be cut short). Of an agentic answer, the text is the final round's: earlier rounds' words
 * ("let me search") introduced tool calls.
 */
export async function wholeAnswer(answer: StartedAnswer, namespaceId: string): Promise<WholeAnswer> {
  let text = "";
  const toolCalls: AnswerToolCall[] = [];
  const withCalls = () => (answer.agentic ? { toolCalls } : {});
  try {
    for await (const delta of answer.deltas) {
      if (delta.type === "text") text += delta.text;
      else if (delta.type === "finish") return { text, finishReason: delta.reason, ...(delta.usage ? { usage: delta.usage } : {}), ...withCalls() };
      else if (delta.type === "tool-call") toolCalls.push({ id: delta.call.id, name: delta.call.name, input: delta.call.input });
      else if (delta.type === "tool-result" || delta.type === "tool-error") {
        const call = toolCalls.find((known) => known.id === delta.callId);
        if (call && delta.type === "tool-result") call.output = delta.output;
        else if (call && delta.type === "tool-error") call.error = delta.errorText;
      } else if (delta.type === "step") text = "";
    }
  } catch (error) {
    throw refusalOf(error, answer.model, namespaceId);
  }
  return { text, finishReason: "other", ...withCalls() };
}
