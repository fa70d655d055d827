import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * An OpenAI-compatible Chat Completions server on 127.0.0.1, for tests of anything that talks to a
 * language model: `POST /v1/chat/completions`, streamed as OpenAI streams it (server-sent events of
 * `chat.completion.chunk` objects, a usage chunk when `stream_options.include_usage` is set, then
 * `data: [DONE]`) or as one `chat.completion` document when `stream` is absent or false; and
 * `GET /v1/models`.
 *
 * - Every request is recorded (`requests`: headers, parsed body, whether the client left early).
 * - The answer comes from `options.answer` (default `sourceQuotingAnswer`: deterministic, quoting
 *   the first source marker such as `[1]` it finds), split into word-sized deltas sent
 *   `deltaDelayMs` apart (default 5) so streaming is observable. `max_tokens` cuts the answer
 *   after that many deltas with `finish_reason: "length"`; a delta counts as one token.
 * - It refuses what OpenAI refuses (and records it in `violations`): no model, no messages, an
 *   unknown role, content that is neither a string nor text parts, `stream_options` without
 *   `stream`. With `options.apiKey` it answers 401 to any other bearer key, echoing the key in the
 *   message as real providers do; with `options.models`, 404 to any other model.
 * - Tool calling: with `options.toolCalls`, a request that offers `tools` (and does not say
 *   `tool_choice: "none"`) is answered with the calls it returns instead of text, streamed as
 *   OpenAI streams them (`delta.tool_calls` with the id and name first, the arguments in pieces),
 *   finishing with `tool_calls`. Tool turns are checked as OpenAI checks them: an assistant turn's
 *   `tool_calls` well formed, every `tool` message answering a call of the turn before.
 * - `failNext(fault, times)` makes the next requests fail: a status with a body and Retry-After,
 *   a connection cut after some deltas, a body that ends early, or an error event mid-stream.
 */
export interface ChatServerRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; `{}` when it was not JSON. */
  body: Record<string, any>;
  /** The connection closed before the answer was complete: the client left (an abort), or a cut fault. */
  clientClosed: boolean;
}

export type ChatServerFault =
  /** Answers this status; `body` defaults to an OpenAI error object; `retryAfter` sets Retry-After. */
  | { status: number; body?: unknown; retryAfter?: string }
  /** Streams this many content deltas, then destroys the socket (a reset mid-answer). */
  | { cutAfterDeltas: number }
  /** Streams this many content deltas, then ends the body cleanly: no finish_reason, no [DONE]. */
  | { endAfterDeltas: number }
  /** Streams this many content deltas, then an `{"error": {...}}` event and [DONE]. */
  | { errorAfterDeltas: number; error: { message: string; type?: string; code?: string | null } };

export interface OpenAiChatServerOptions {
  /** The answer's text for a request body; default `sourceQuotingAnswer(body.messages)`. */
  answer?: (body: Record<string, any>) => string;
  /** Pause before each content delta; default 5 ms. */
  deltaDelayMs?: number;
  /** The bearer key every request must carry; absent, any key or none is accepted. */
  apiKey?: string;
  /** The models it serves; absent, any model name is accepted. */
  models?: string[];
  /** Tool calls to answer a request that offers tools with; none (or an empty list) answers with text. */
  toolCalls?: (body: Record<string, any>) => { name: string; arguments: Record<string, unknown> }[] | undefined;
}

export interface OpenAiChatServer {
  /** Ends in `/v1`, as an OpenAI base URL does. */
  baseUrl: string;
  requests: ChatServerRequest[];
  violations: string[];
  /** The next `times` chat requests meet `fault` (queued after faults already pending). */
  failNext(fault: ChatServerFault, times?: number): void;
  close(): Promise<void>;
}

interface ChatLikeMessage {
  role: string;
  content: unknown;
}

/** The text of a message's content: a string, or OpenAI's array of `{type: "text", text}` parts. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

/**
 * A deterministic answer: it names the last user question and cites the first source marker
 * (`[1]`, `[2]` ...) found in the system and user messages, or says the sources do not answer.
 */
export function sourceQuotingAnswer(messages: ChatLikeMessage[]): string {
  const asked = messages.filter((message) => message.role !== "assistant");
  const question = contentText([...asked].reverse().find((message) => message.role === "user")?.content).trim().replace(/\s+/g, " ").slice(0, 200);
  const marker = asked.map((message) => /\[\d+\]/.exec(contentText(message.content))?.[0]).find((found) => found !== undefined);
  return marker ? `According to the sources, the answer to "${question}" is in ${marker}.` : `The sources do not answer "${question}".`;
}

/** Word-sized pieces that join back to the text exactly. */
export function textDeltas(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== "");
}

/** A rough token count (four characters each), as usage figures. */
export function roughTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const ROLES = ["system", "developer", "user", "assistant", "tool"];

function openAiError(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

function readBody(request: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function parseBody(raw: string): Record<string, any> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, any>) : undefined;
  } catch {
    return undefined;
  }
}

/** What OpenAI would refuse in a chat request, or null. */
function invalidRequest(body: Record<string, any>): string | null {
  if (typeof body.model !== "string" || body.model === "") return "you must provide a model parameter";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "'messages' must be a non-empty array";
  const pendingCalls = new Set<string>();
  for (const [index, message] of (body.messages as any[]).entries()) {
    if (!ROLES.includes(message?.role)) return `messages[${index}].role must be one of ${ROLES.join(", ")}`;
    const content = message.content;
    if (message.role === "tool") {
      if (!pendingCalls.has(message.tool_call_id)) return `messages[${index}]: a message with role 'tool' must be a response to a preceding message with 'tool_calls'`;
      pendingCalls.delete(message.tool_call_id);
      if (typeof content !== "string") return `messages[${index}].content must be a string`;
      continue;
    }
    if (pendingCalls.size > 0) return `messages[${index}]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'`;
    if (message.role === "assistant" && message.tool_calls !== undefined) {
      if (!Array.isArray(body.tools)) return `messages[${index}].tool_calls given but the request offers no tools`;
      for (const call of message.tool_calls) {
        if (typeof call?.id !== "string" || call.type !== "function" || typeof call.function?.name !== "string" || typeof call.function?.arguments !== "string") {
          return `messages[${index}].tool_calls must be {id, type: "function", function: {name, arguments: string}}`;
        }
        pendingCalls.add(call.id);
      }
      if (content === null) continue;
    }
    const parts = Array.isArray(content) && content.every((part: any) => part?.type === "text" && typeof part.text === "string");
    if (typeof content !== "string" && !parts) return `messages[${index}].content must be a string or an array of text parts`;
  }
  if (pendingCalls.size > 0) return "an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'";
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.some((tool: any) => tool?.type !== "function" || typeof tool.function?.name !== "string" || typeof tool.function?.parameters !== "object")) {
      return "'tools' must be a list of {type: 'function', function: {name, description, parameters}}";
    }
  }
  if (body.tool_choice !== undefined && body.tools === undefined) return "'tool_choice' is only allowed when 'tools' are specified";
  if (body.stream !== undefined && typeof body.stream !== "boolean") return "'stream' must be a boolean";
  if (body.stream_options !== undefined && body.stream !== true) return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  if (body.max_tokens !== undefined && (!Number.isInteger(body.max_tokens) || body.max_tokens < 1)) return "'max_tokens' must be a positive integer";
  if (body.temperature !== undefined && (typeof body.temperature !== "number" || body.temperature < 0 || body.temperature > 2)) return "'temperature' must be between 0 and 2";
  return null;
}

interface Answer {
  deltas: string[];
  finishReason: "stop" | "length";
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function composeAnswer(body: Record<string, any>, answerOf: (body: Record<string, any>) => string): Answer {
  const all = textDeltas(answerOf(body));
  const limit = body.max_tokens ?? body.max_completion_tokens;
  const deltas = Number.isInteger(limit) && limit < all.length ? all.slice(0, limit) : all;
  const prompt = roughTokens((body.messages as ChatLikeMessage[]).map((message) => contentText(message.content)).join("\n"));
  return {
    deltas,
    finishReason: deltas.length < all.length ? "length" : "stop",
    usage: { prompt_tokens: prompt, completion_tokens: deltas.length, total_tokens: prompt + deltas.length },
  };
}

let completionCounter = 0;

async function streamAnswer(response: ServerResponse, body: Record<string, any>, answer: Answer, delayMs: number, fault: ChatServerFault | undefined): Promise<void> {
  const id = `chatcmpl-${++completionCounter}`;
  const created = Math.floor(Date.now() / 1000);
  const includeUsage = body.stream_options?.include_usage === true;
  // Each event is flushed before the next step, so a cut comes after the deltas it follows.
  const send = (data: unknown) => new Promise<void>((resolve) => response.write(`data: ${JSON.stringify(data)}\n\n`, () => resolve()));
  const chunk = (delta: Record<string, string>, finishReason: string | null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: body.model,
    system_fingerprint: "fp_test",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  await send(chunk({ role: "assistant", content: "" }, null));
  const stopAt = fault && "cutAfterDeltas" in fault ? fault.cutAfterDeltas : fault && "endAfterDeltas" in fault ? fault.endAfterDeltas : fault && "errorAfterDeltas" in fault ? fault.errorAfterDeltas : Infinity;
  for (const [index, text] of answer.deltas.entries()) {
    if (index >= stopAt) break;
    await sleep(delayMs);
    if (response.destroyed) return;
    await send(chunk({ content: text }, null));
  }
  if (fault && "cutAfterDeltas" in fault) return void response.socket?.destroy();
  if (fault && "endAfterDeltas" in fault) return void response.end();
  if (fault && "errorAfterDeltas" in fault) {
    await send({ error: { type: "server_error", code: null, param: null, ...fault.error } });
    response.end("data: [DONE]\n\n");
    return;
  }
  await send(chunk({}, answer.finishReason));
  if (includeUsage) await send({ id, object: "chat.completion.chunk", created, model: body.model, system_fingerprint: "fp_test", choices: [], usage: answer.usage });
  response.end("data: [DONE]\n\n");
}

function completion(body: Record<string, any>, answer: Answer) {
  return {
    id: `chatcmpl-${++completionCounter}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    system_fingerprint: "fp_test",
    choices: [{ index: 0, message: { role: "assistant", content: answer.deltas.join(""), refusal: null }, logprobs: null, finish_reason: answer.finishReason }],
    usage: answer.usage,
  };
}

let toolCallCounter = 0;

interface ScriptedCall {
  id: string;
  name: string;
  arguments: string;
}

/** Tool calls as OpenAI streams them: id, type and name in the first piece of each, the arguments in two more. */
async function streamToolCalls(response: ServerResponse, body: Record<string, any>, calls: ScriptedCall[], delayMs: number): Promise<void> {
  const id = `chatcmpl-${++completionCounter}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({ id, object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
  const send = (data: unknown) => new Promise<void>((resolve) => response.write(`data: ${JSON.stringify(data)}\n\n`, () => resolve()));
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  await send(chunk({ role: "assistant", content: null }, null));
  for (const [index, call] of calls.entries()) {
    await sleep(delayMs);
    await send(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }, null));
    const half = Math.ceil(call.arguments.length / 2);
    for (const piece of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
      await sleep(delayMs);
      await send(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
    }
  }
  await send(chunk({}, "tool_calls"));
  if (body.stream_options?.include_usage === true) {
    await send({ id, object: "chat.completion.chunk", created, model: body.model, choices: [], usage: { prompt_tokens: 10, completion_tokens: calls.length * 10, total_tokens: 10 + calls.length * 10 } });
  }
  response.end("data: [DONE]\n\n");
}

function toolCompletion(body: Record<string, any>, calls: ScriptedCall[]) {
  return {
    id: `chatcmpl-${++completionCounter}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })) }, finish_reason: "tool_calls" }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

export async function startOpenAiChatServer(options: OpenAiChatServerOptions = {}): Promise<OpenAiChatServer> {
  const requests: ChatServerRequest[] = [];
  const violations: string[] = [];
  const faults: ChatServerFault[] = [];
  const answerOf = options.answer ?? ((body: Record<string, any>) => sourceQuotingAnswer(body.messages));
  const delayMs = options.deltaDelayMs ?? 5;

  const server: Server = createServer(async (request, response) => {
    const path = (request.url ?? "").split("?")[0]!;
    if (request.method === "GET" && path === "/v1/models") {
      const ids = options.models ?? [];
      return sendJson(response, 200, { object: "list", data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "test" })) });
    }
    if (request.method !== "POST" || path !== "/v1/chat/completions") {
      return sendJson(response, 404, openAiError(`Unknown request URL: ${request.method} ${path}.`, "invalid_request_error", "unknown_url"));
    }
    const body = parseBody(await readBody(request)) ?? {};
    const record: ChatServerRequest = { method: request.method, path, headers: request.headers, body, clientClosed: false };
    requests.push(record);
    response.on("close", () => {
      if (!response.writableEnded) record.clientClosed = true;
    });

    const fault = faults.shift();
    if (fault && "status" in fault) {
      const failure = fault.body ?? openAiError(`the test server answered ${fault.status}`, fault.status >= 500 ? "server_error" : "requests", null);
      return sendJson(response, fault.status, failure, fault.retryAfter !== undefined ? { "retry-after": fault.retryAfter } : {});
    }
    if (options.apiKey !== undefined) {
      const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
      if (key === undefined) return sendJson(response, 401, openAiError("You didn't provide an API key.", "invalid_request_error", null));
      if (key !== options.apiKey) return sendJson(response, 401, openAiError(`Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`, "invalid_request_error", "invalid_api_key"));
    }
    const invalid = invalidRequest(body);
    if (invalid) {
      violations.push(invalid);
      return sendJson(response, 400, openAiError(invalid, "invalid_request_error", null));
    }
    if (options.models && !options.models.includes(body.model)) {
      return sendJson(response, 404, openAiError(`The model \`${body.model}\` does not exist or you do not have access to it.`, "invalid_request_error", "model_not_found"));
    }
    const calls = Array.isArray(body.tools) && body.tool_choice !== "none" ? (options.toolCalls?.(body) ?? []) : [];
    if (calls.length > 0) {
      const scripted = calls.map((call) => ({ id: `call_${++toolCallCounter}`, name: call.name, arguments: JSON.stringify(call.arguments) }));
      if (body.stream !== true) return sendJson(response, 200, toolCompletion(body, scripted));
      return streamToolCalls(response, body, scripted, delayMs);
    }
    const answer = composeAnswer(body, answerOf);
    if (body.stream !== true) return sendJson(response, 200, completion(body, answer));
    await streamAnswer(response, body, answer, delayMs, fault);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    requests,
    violations,
    failNext: (fault, times = 1) => {
      for (let count = 0; count < times; count++) faults.push(fault);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
