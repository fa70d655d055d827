import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import { createParser } from "eventsource-parser";
import { guardedLookup, refusalReason } from "../../fetch/public-url.ts";
import { config } from "../../platform/env.ts";
import { logger } from "../../platform/logger.ts";
import { backoffMs, isRecord, isRetryableStatus, providerErrorDetail, retryAfterMs, scrub, trimSlash } from "../../platform/provider-http.ts";
import type { ChatModelSettings } from "../registry.ts";
import { ChatError, type ChatDelta, type ChatMessage, type ChatModel, type ChatOptions, type FinishReason, toolCallOf } from "../types.ts";

/**
 * Any server speaking OpenAI's Chat Completions streaming protocol (OpenAI, Azure OpenAI's v1
 * endpoint, vLLM, Ollama, LM Studio, llama.cpp, OpenRouter ...), reached with the namespace owner's
 * key. The base URL is the owner's to choose, so the connection goes through the same SSRF guard
 * as URL ingestion.
 */
const PROVIDER = "OPENAI_COMPATIBLE";

const HEADERS_TIMEOUT_MS = 30_000;
const IDLE_TIMEOUT_MS = 60_000;
const MAX_ATTEMPTS = 3;
// Someone is waiting for the answer: short steps (config.chatRetryBaseDelayMs), and no single wait longer than this.
const MAX_RETRY_DELAY_MS = 10_000;
const MAX_ERROR_BODY_BYTES = 64 * 1024;
// A server that ignores `stream: true` answers one JSON document; an answer is not larger than this.
const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;

interface Endpoint {
  url: URL;
  label: string;
  model: string;
  apiKey: string;
}

/** A failure of one attempt; `retryable` says whether another attempt may succeed. */
class AttemptError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly options: { status?: number; delayMs?: number; unreachable?: boolean } = {},
  ) {
    super(message);
  }
}

/** Connection errors that mean nothing listens at the address (or there is no such address). */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

export function create(settings: ChatModelSettings): ChatModel {
  return {
    model: settings.model,
    stream: (messages, options = {}) => streamChat(settings, messages, options),
  };
}

function endpointOf(settings: ChatModelSettings): Endpoint {
  let url: URL;
  try {
    url = new URL(`${trimSlash(settings.baseUrl ?? "")}/chat/completions`);
  } catch {
    throw new ChatError(PROVIDER, "The OpenAI-compatible model needs an http(s) base URL", { retryable: false });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ChatError(PROVIDER, `The model endpoint must be http(s), not ${url.protocol}`, { retryable: false });
  const label = `The model endpoint ${url.host}`;
  const refused = config.allowPrivateModelUrls() ? null : refusalReason(url.href);
  if (refused) throw new ChatError(PROVIDER, `Refused to call ${url.host}: ${refused}`, { retryable: false });
  return { url, label, model: settings.model, apiKey: settings.apiKey ?? "" };
}

/**
 * OpenAI's own API refuses `max_tokens` for its reasoning models and takes `max_completion_tokens`
 * for all; the servers that copy its protocol (vLLM, Ollama, llama.cpp ...) read `max_tokens`.
 */
export function tokenLimitField(url: URL): "max_tokens" | "max_completion_tokens" {
  return url.hostname.toLowerCase() === "api.openai.com" ? "max_completion_tokens" : "max_tokens";
}

/** A turn as Chat Completions takes it: tool calls with their input as a JSON string, tool results by call id. */
function wireMessage(message: ChatMessage): Record<string, unknown> {
  if (message.role === "tool") return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  if (message.role === "assistant" && message.toolCalls && message.toolCalls.length > 0) {
    return {
      role: "assistant",
      content: message.content === "" ? null : message.content,
      tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) } })),
    };
  }
  return { role: message.role, content: message.content };
}

function requestBody(endpoint: Endpoint, messages: ChatMessage[], options: ChatOptions): string {
  const tools = options.tools ?? [];
  return JSON.stringify({
    model: endpoint.model,
    messages: messages.map(wireMessage),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } })),
          tool_choice: options.toolChoice ?? "auto",
        }
      : {}),
    stream: true,
    stream_options: { include_usage: true },
    ...(options.maxOutputTokens !== undefined ? { [tokenLimitField(endpoint.url)]: options.maxOutputTokens } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  });
}

async function* streamChat(settings: ChatModelSettings, messages: ChatMessage[], options: ChatOptions): AsyncGenerator<ChatDelta> {
  const endpoint = endpointOf(settings);
  const body = requestBody(endpoint, messages, options);
  for (let attempt = 1; ; attempt++) {
    let produced = false;
    try {
      for await (const delta of attemptChat(endpoint, body, options.signal)) {
        if (delta.type === "text") produced = true;
        yield delta;
      }
      return;
    } catch (error) {
      if (options.signal?.aborted) throw cancelled(endpoint);
      if (!(error instanceof AttemptError)) throw unexpected(endpoint, error);
      // Once text has reached the caller, a second answer would not continue the first.
      if (produced || !error.retryable || attempt >= MAX_ATTEMPTS) throw chatError(endpoint, error, attempt);
      logger.warn("chat request will be retried", { provider: PROVIDER, attempt, error: error.message });
      await pause(error.options.delayMs ?? backoffMs(attempt, config.chatRetryBaseDelayMs(), MAX_RETRY_DELAY_MS), endpoint, options);
    }
  }
}

async function pause(ms: number, endpoint: Endpoint, { signal, wait }: ChatOptions): Promise<void> {
  const delay = Math.min(ms, MAX_RETRY_DELAY_MS);
  try {
    await (wait ? wait(delay, signal) : sleep(delay, undefined, { signal }));
  } catch {
    throw cancelled(endpoint);
  }
}

function cancelled(endpoint: Endpoint): ChatError {
  return new ChatError(PROVIDER, `${endpoint.label}: the request was cancelled`, { retryable: false });
}

function unexpected(endpoint: Endpoint, error: unknown): ChatError {
  logger.error("chat request failed unexpectedly", { provider: PROVIDER, error: scrub(String(error), endpoint.apiKey) });
  return new ChatError(PROVIDER, `${endpoint.label}: the answer could not be read`, { retryable: false });
}

function chatError(endpoint: Endpoint, error: AttemptError, attempts: number): ChatError {
  const { status, unreachable } = error.options;
  const gaveUp = error.retryable && attempts > 1 ? ` (gave up after ${attempts} attempts)` : "";
  // Attempt errors are built from safe parts only: the label, the status, a scrubbed provider detail.
  return new ChatError(PROVIDER, `${error.message}${gaveUp}`, { status, retryable: error.retryable, ...(unreachable ? { unreachable } : {}) });
}

/** One HTTP request: its deltas, or an AttemptError. */
async function* attemptChat(endpoint: Endpoint, body: string, signal: AbortSignal | undefined): AsyncGenerator<ChatDelta> {
  const exchange = open(endpoint, body, signal);
  try {
    const response = await exchange.response;
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) throw await statusError(endpoint, response);
    if (/application\/json/i.test(response.headers["content-type"] ?? "")) {
      yield* completionDeltas(endpoint, await readBody(endpoint, response, MAX_JSON_BODY_BYTES));
      return;
    }
    yield* eventDeltas(endpoint, response);
  } finally {
    exchange.close();
  }
}

interface Exchange {
  response: Promise<IncomingMessage>;
  close(): void;
}

function open(endpoint: Endpoint, body: string, signal: AbortSignal | undefined): Exchange {
  const send = endpoint.url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    "content-length": String(Buffer.byteLength(body)),
    "user-agent": "knowledge-ingestion-service",
  };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  let request: ClientRequest | undefined;
  let incoming: IncomingMessage | undefined;
  const onAbort = () => request?.destroy(cancelled(endpoint));
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request = send(endpoint.url, {
      method: "POST",
      headers,
      // Without the guard, the default resolver: the local stack's model server is on 127.0.0.1.
      ...(config.allowPrivateModelUrls() ? {} : { lookup: guardedLookup }),
    });
    const timer = setTimeout(() => request?.destroy(timeoutError(endpoint, HEADERS_TIMEOUT_MS)), HEADERS_TIMEOUT_MS);
    request.on("response", (answer) => {
      clearTimeout(timer);
      incoming = answer;
      resolve(answer);
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(networkError(endpoint, error));
    });
    request.end(body);
  });
  if (signal?.aborted) onAbort();
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    response,
    close: () => {
      signal?.removeEventListener("abort", onAbort);
      // A response read to its end leaves the connection to the agent for the next request.
      if (!incoming?.complete) request?.destroy();
    },
  };
}

function timeoutError(endpoint: Endpoint, ms: number): AttemptError {
  return new AttemptError(`${endpoint.label} did not answer within ${ms / 1000} s`, true);
}

function networkError(endpoint: Endpoint, error: NodeJS.ErrnoException): AttemptError | ChatError {
  if (error instanceof AttemptError || error instanceof ChatError) return error;
  // A refusal by the guard is the owner's to fix; its text names only the host and the address kind.
  if (error.code === "EPRIVATE") return new AttemptError(`${endpoint.label}: ${error.message}`, false);
  if (error.code === "ENOTFOUND") return new AttemptError(`${endpoint.label} could not be found (DNS)`, false, { unreachable: true });
  logger.warn("chat request failed", { provider: PROVIDER, error: scrub(String(error), endpoint.apiKey) });
  // A refused connection is retried (a server restarting), but if nothing ever listens it is the configuration's to fix.
  const unreachable = UNREACHABLE_CODES.has(error.code ?? "");
  return new AttemptError(`${endpoint.label} could not be reached${unreachable ? ` (${error.code})` : ""}`, true, unreachable ? { unreachable } : {});
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  return headers;
}

async function statusError(endpoint: Endpoint, response: IncomingMessage): Promise<AttemptError> {
  const status = response.statusCode ?? 0;
  const { label, model } = endpoint;
  if (status === 401 || status === 403) {
    // Providers echo the rejected key (or part of it) in the message; say only what happened.
    response.resume();
    return new AttemptError(`${label} rejected the API key (HTTP ${status})`, false, { status });
  }
  const delayMs = retryAfterMs(headersOf(response));
  const detail = providerErrorDetail(await readBody(endpoint, response, MAX_ERROR_BODY_BYTES).catch(() => ""), endpoint.apiKey);
  const suffix = detail ? `: ${detail}` : "";
  if (status === 429) return new AttemptError(`${label} rate limit exceeded (HTTP 429)${suffix}`, true, { status, delayMs });
  if (isRetryableStatus(status)) return new AttemptError(`${label} failed with HTTP ${status}${suffix}`, true, { status, delayMs });
  if (status === 404) return new AttemptError(`${label} did not find the model ${model} (HTTP 404)${suffix}`, false, { status });
  return new AttemptError(`${label} refused the request (HTTP ${status})${suffix}`, false, { status });
}

async function readBody(endpoint: Endpoint, response: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) break;
      chunks.push(chunk as Buffer);
    }
  } catch {
    throw new AttemptError(`${endpoint.label} broke off the answer`, true);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** What the stream has said so far; the finish is emitted once it ends. */
interface StreamState {
  done: boolean;
  reason?: FinishReason;
  usage?: { inputTokens: number; outputTokens: number };
  /** Tool calls by their stream index; their arguments arrive in pieces. */
  calls: Map<number, { id: string; name: string; arguments: string }>;
}

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: "stop",
  length: "length",
  content_filter: "content-filter",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
};

function* callDeltas(state: StreamState): Generator<ChatDelta> {
  for (const [index, call] of [...state.calls.entries()].sort(([a], [b]) => a - b)) {
    yield { type: "tool-call", call: toolCallOf(call.id || `call_${index}`, call.name, call.arguments) };
  }
}

async function* eventDeltas(endpoint: Endpoint, response: IncomingMessage): AsyncGenerator<ChatDelta> {
  const state: StreamState = { done: false, calls: new Map() };
  const events: string[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event.data) });
  // Decoded across chunk boundaries, so a character split between two chunks survives.
  response.setEncoding("utf8");
  const chunks = response[Symbol.asyncIterator]();
  let waitMs = HEADERS_TIMEOUT_MS;
  while (!state.done) {
    const next = await nextChunk(endpoint, chunks, waitMs);
    if (next.done) break;
    waitMs = IDLE_TIMEOUT_MS;
    parser.feed(next.value as string);
    for (const data of events.splice(0)) {
      if (state.done) break;
      if (data === "[DONE]") state.done = true;
      else yield* chunkDeltas(parseEvent(endpoint, data), state);
    }
  }
  // Usage alone is no end: a finish reason or [DONE] says the answer is complete.
  if (!state.done && state.reason === undefined) throw new AttemptError(`${endpoint.label} ended the answer before it was complete`, true);
  yield* callDeltas(state);
  yield { type: "finish", reason: state.reason ?? "other", ...(state.usage ? { usage: state.usage } : {}) };
}

/** The next body chunk; a silence longer than `ms` (the caller's time between chunks excluded) fails. */
async function nextChunk(endpoint: Endpoint, chunks: AsyncIterator<unknown>, ms: number): Promise<IteratorResult<unknown>> {
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(endpoint, ms)), ms);
  });
  try {
    return await Promise.race([chunks.next(), silence]);
  } catch (error) {
    if (error instanceof AttemptError) throw error;
    throw new AttemptError(`${endpoint.label} broke off the answer`, true);
  } finally {
    clearTimeout(timer);
  }
}

function parseEvent(endpoint: Endpoint, data: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new AttemptError(`${endpoint.label} sent an event that is not JSON`, false);
  }
  if (!isRecord(parsed)) throw new AttemptError(`${endpoint.label} sent an event that is not a JSON object`, false);
  if (parsed.error !== undefined && parsed.error !== null) throw streamedError(endpoint, parsed.error);
  return parsed;
}

/** An `{"error": {...}}` event: what went wrong after the headers said 200. */
function streamedError(endpoint: Endpoint, error: unknown): AttemptError {
  const detail = providerErrorDetail(JSON.stringify({ error }), endpoint.apiKey);
  const kind = isRecord(error) ? `${String(error.type ?? "")} ${String(error.code ?? "")}` : "";
  const retryable = /server_error|overloaded|rate_limit|timeout|\b(?:429|5\d\d)\b/i.test(kind);
  return new AttemptError(`${endpoint.label} reported an error during the answer${detail ? `: ${detail}` : ""}`, retryable);
}

function chunkDeltas(chunk: Record<string, unknown>, state: StreamState): ChatDelta[] {
  const usage = usageOf(chunk.usage);
  if (usage) state.usage = usage;
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (!isRecord(choice)) return [];
  if (typeof choice.finish_reason === "string") state.reason = FINISH_REASONS[choice.finish_reason] ?? "other";
  const toolCalls = isRecord(choice.delta) && Array.isArray(choice.delta.tool_calls) ? choice.delta.tool_calls : [];
  for (const [position, piece] of toolCalls.entries()) {
    if (!isRecord(piece)) continue;
    const index = typeof piece.index === "number" ? piece.index : position;
    const call = state.calls.get(index) ?? { id: "", name: "", arguments: "" };
    if (typeof piece.id === "string" && piece.id !== "") call.id = piece.id;
    const fn = isRecord(piece.function) ? piece.function : {};
    if (typeof fn.name === "string") call.name += fn.name;
    if (typeof fn.arguments === "string") call.arguments += fn.arguments;
    state.calls.set(index, call);
  }
  const content = isRecord(choice.delta) ? choice.delta.content : undefined;
  return typeof content === "string" && content !== "" ? [{ type: "text", text: content }] : [];
}

function usageOf(value: unknown): StreamState["usage"] {
  if (!isRecord(value) || typeof value.prompt_tokens !== "number" || typeof value.completion_tokens !== "number") return undefined;
  return { inputTokens: value.prompt_tokens, outputTokens: value.completion_tokens };
}

/** A server that answered `stream: true` with one `chat.completion` document. */
function* completionDeltas(endpoint: Endpoint, raw: string): Generator<ChatDelta> {
  const completion = parseEvent(endpoint, raw);
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
  if (!message) throw new AttemptError(`${endpoint.label} answered without a message`, false);
  if (typeof message.content === "string" && message.content !== "") yield { type: "text", text: message.content };
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  for (const [index, call] of calls.entries()) {
    const fn = isRecord(call.function) ? call.function : {};
    yield { type: "tool-call", call: toolCallOf(typeof call.id === "string" ? call.id : `call_${index}`, String(fn.name ?? ""), typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {})) };
  }
  const reason = typeof choice?.finish_reason === "string" ? (FINISH_REASONS[choice.finish_reason] ?? "other") : "other";
  const usage = usageOf(completion.usage);
  yield { type: "finish", reason, ...(usage ? { usage } : {}) };
}
