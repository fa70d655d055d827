import type { BedrockRuntimeClient, ContentBlock, ConverseStreamCommandInput, ConverseStreamOutput, SystemContentBlock, Tool } from "@aws-sdk/client-bedrock-runtime";
import { lazyImport } from "../../platform/lazy-import.ts";
import { observed } from "../../platform/sdk-observer.ts";
import type { ChatModelSettings } from "../registry.ts";
import { ChatError, type ChatDelta, type ChatMessage, type ChatModel, type ChatOptions, type FinishReason, toolCallOf } from "../types.ts";

/**
 * Amazon Bedrock's ConverseStream, reached with the function's IAM role: one request shape for
 * every model and inference profile the account may use.
 */
type RuntimeSdk = typeof import("@aws-sdk/client-bedrock-runtime");

/** Only the functions that chat pay for the client, and only when they do. */
const loadSdk = lazyImport<RuntimeSdk>(() => import("@aws-sdk/client-bedrock-runtime"));

let sharedClient: BedrockRuntimeClient | undefined;

const STOP_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  guardrail_intervened: "content-filter",
  content_filtered: "content-filter",
  tool_use: "tool-calls",
};

/** Bedrock has no "no tool" choice, and refuses tool blocks in a conversation without the tools; the prompt says it instead. */
const ANSWER_NOW = "Do not call any tool now: answer from what the tools have already returned.";

const RETRYABLE = new Set([
  "ThrottlingException",
  "ServiceUnavailableException",
  "InternalServerException",
  "ModelStreamErrorException",
  "ModelNotReadyException",
  "ModelTimeoutException",
]);

export function create(settings: ChatModelSettings): ChatModel {
  return {
    model: settings.model,
    stream: (messages, options = {}) => converse(settings.model, messages, options),
  };
}

/**
 * Converse takes the system prompt apart from the turns, and turns that start with the user and
 * alternate; the port's conversation need not, so same-role turns are merged and a leading
 * assistant turn (a greeting, say) is dropped. Blank texts are refused by Bedrock and say nothing.
 * Tool results travel in a user turn, as Converse's `toolResult` blocks.
 */
function converseInput(model: string, messages: ChatMessage[], options: ChatOptions): ConverseStreamCommandInput {
  const system: SystemContentBlock[] = messages.filter((message) => message.role === "system" && message.content.trim() !== "").map((message) => ({ text: message.content }));
  const tools = options.tools ?? [];
  if (tools.length > 0 && options.toolChoice === "none") system.push({ text: ANSWER_NOW });
  const turns: { role: "user" | "assistant"; content: ContentBlock[] }[] = [];
  for (const message of messages) {
    if (message.role === "system") continue;
    const role = message.role === "tool" ? "user" : message.role;
    const blocks = blocksOf(message);
    if (blocks.length === 0 || (role === "assistant" && turns.length === 0)) continue;
    const last = turns.at(-1);
    if (last?.role !== role) {
      turns.push({ role, content: blocks });
      continue;
    }
    for (const block of blocks) {
      const previous = last.content.at(-1);
      if (previous?.text !== undefined && block.text !== undefined) last.content[last.content.length - 1] = { text: `${previous.text}\n\n${block.text}` };
      else last.content.push(block);
    }
  }
  const inferenceConfig = {
    ...(options.maxOutputTokens !== undefined ? { maxTokens: options.maxOutputTokens } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  };
  return {
    modelId: model,
    messages: turns,
    ...(system.length > 0 ? { system } : {}),
    ...(Object.keys(inferenceConfig).length > 0 ? { inferenceConfig } : {}),
    ...(tools.length > 0
      ? { toolConfig: { tools: tools.map((tool): Tool => ({ toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.inputSchema as never } } })) } }
      : {}),
  };
}

function blocksOf(message: ChatMessage): ContentBlock[] {
  if (message.role === "tool") return [{ toolResult: { toolUseId: message.toolCallId, content: [{ text: message.content.trim() === "" ? "(empty)" : message.content }] } }];
  const text: ContentBlock[] = message.content.trim() === "" ? [] : [{ text: message.content }];
  if (message.role !== "assistant" || !message.toolCalls) return text;
  return [...text, ...message.toolCalls.map((call): ContentBlock => ({ toolUse: { toolUseId: call.id, name: call.name, input: (call.input ?? {}) as never } }))];
}

async function* converse(model: string, messages: ChatMessage[], options: ChatOptions): AsyncGenerator<ChatDelta> {
  const input = converseInput(model, messages, options);
  if (input.messages?.length === 0) throw new ChatError("BEDROCK", "The conversation has no user message to answer", { retryable: false });
  const sdk = await loadSdk();
  // Someone is waiting for the answer: one retry, then the caller reports the failure.
  sharedClient ??= observed(new sdk.BedrockRuntimeClient({ maxAttempts: 2 }));
  let reason: FinishReason | undefined;
  let usage: { inputTokens: number; outputTokens: number } | undefined;
  // Tool uses by content block; their input arrives as pieces of JSON text.
  const uses = new Map<number, { id: string; name: string; input: string }>();
  try {
    const output = await sharedClient.send(new sdk.ConverseStreamCommand(input), { abortSignal: options.signal });
    for await (const event of output.stream ?? []) {
      if (options.signal?.aborted) break;
      const text = eventText(event);
      if (text) yield { type: "text", text };
      const started = event.contentBlockStart?.start?.toolUse;
      if (started) uses.set(event.contentBlockStart?.contentBlockIndex ?? uses.size, { id: started.toolUseId ?? "", name: started.name ?? "", input: "" });
      const piece = event.contentBlockDelta?.delta?.toolUse?.input;
      const use = uses.get(event.contentBlockDelta?.contentBlockIndex ?? -1);
      if (piece !== undefined && use) use.input += piece;
      if (event.messageStop) reason = STOP_REASONS[event.messageStop.stopReason ?? ""] ?? "other";
      if (event.metadata?.usage) usage = { inputTokens: event.metadata.usage.inputTokens ?? 0, outputTokens: event.metadata.usage.outputTokens ?? 0 };
    }
  } catch (error) {
    if (error instanceof ChatError) throw error;
    throw options.signal?.aborted ? cancelled(model) : toChatError(error, model);
  }
  if (options.signal?.aborted) throw cancelled(model);
  // The stream ends with messageStop, then metadata; without it the answer was cut short.
  if (reason === undefined) throw new ChatError("BEDROCK", `Bedrock ended the answer of ${model} before it was complete`, { retryable: true });
  for (const [, use] of [...uses.entries()].sort(([a], [b]) => a - b)) yield { type: "tool-call", call: toolCallOf(use.id, use.name, use.input) };
  yield { type: "finish", reason, ...(usage ? { usage } : {}) };
}

/** A delta's text; an exception event (the union's other members) is thrown as the error it names. */
function eventText(event: ConverseStreamOutput): string | undefined {
  const failure = Object.entries(event).find(([name, value]) => name.endsWith("Exception") && value);
  if (failure) {
    const [member, detail] = failure as [string, { message?: string } | undefined];
    throw Object.assign(new Error(detail?.message ?? ""), { name: member.charAt(0).toUpperCase() + member.slice(1) });
  }
  return event.contentBlockDelta?.delta?.text;
}

function cancelled(model: string): ChatError {
  return new ChatError("BEDROCK", `The answer of ${model} was cancelled`, { retryable: false });
}

function toChatError(error: unknown, model: string): ChatError {
  const name = (error as { name?: string } | null)?.name ?? "Error";
  const message = ((error as { message?: string } | null)?.message ?? "").replace(/\s+/g, " ").slice(0, 300);
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  if (name === "AccessDeniedException") {
    // Its message names the function's role; the owner needs to know what to enable, not that.
    const subscribing = /marketplace|subscri/i.test(message);
    const advice = subscribing
      ? "Bedrock has not yet enabled the model for this account (its first use subscribes the account in AWS Marketplace)"
      : "the account may not have access to that model in Bedrock (model access, the model's regions, or an inference profile id instead of a model id)";
    return new ChatError("BEDROCK", `Bedrock refused ${model}: ${advice} (AccessDeniedException)`, { status, retryable: subscribing });
  }
  const retryable = RETRYABLE.has(name) || (status !== undefined && status >= 500);
  return new ChatError("BEDROCK", `Bedrock ${model} failed: ${name}${message ? `: ${message}` : ""}`, { status, retryable });
}
