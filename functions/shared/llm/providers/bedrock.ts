import type { BedrockRuntimeClient, ConverseStreamCommandInput, ConverseStreamOutput, Message, SystemContentBlock } from "@aws-sdk/client-bedrock-runtime";
import { lazyImport } from "../../platform/lazy-import.ts";
import { observed } from "../../platform/sdk-observer.ts";
import type { ChatModelSettings } from "../registry.ts";
import { ChatError, type ChatDelta, type ChatMessage, type ChatModel, type ChatOptions, type FinishReason } from "../types.ts";

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
};

const RETRYABLE = new Set([
  "ThrottlingException",
  "ServiceUnavailableException",
  "InternalServerException",
  "ModelStreamErrorException",
  "ModelNotReadyException",
  "ModelTimeoutException",
]);

export function createChatModel(settings: ChatModelSettings): ChatModel {
  return {
    model: settings.model,
    stream: (messages, options = {}) => converse(settings.model, messages, options),
  };
}

/**
 * Converse takes the system prompt apart from the turns, and turns that start with the user and
 * alternate; the port's conversation need not, so same-role turns are merged and a leading
 * assistant turn (a greeting, say) is dropped. Blank texts are refused by Bedrock and say nothing.
 */
function converseInput(model: string, messages: ChatMessage[], options: ChatOptions): ConverseStreamCommandInput {
  const said = messages.filter((message) => message.content.trim() !== "");
  const system: SystemContentBlock[] = said.filter((message) => message.role === "system").map((message) => ({ text: message.content }));
  const turns: { role: "user" | "assistant"; text: string }[] = [];
  for (const { role, content } of said) {
    if (role === "system" || (role === "assistant" && turns.length === 0)) continue;
    const last = turns.at(-1);
    if (last?.role === role) last.text = `${last.text}\n\n${content}`;
    else turns.push({ role, text: content });
  }
  const inferenceConfig = {
    ...(options.maxOutputTokens !== undefined ? { maxTokens: options.maxOutputTokens } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  };
  return {
    modelId: model,
    messages: turns.map(({ role, text }): Message => ({ role, content: [{ text }] })),
    ...(system.length > 0 ? { system } : {}),
    ...(Object.keys(inferenceConfig).length > 0 ? { inferenceConfig } : {}),
  };
}

async function* converse(model: string, messages: ChatMessage[], options: ChatOptions): AsyncGenerator<ChatDelta> {
  const input = converseInput(model, messages, options);
  if (input.messages?.length === 0) throw new ChatError("BEDROCK", "The conversation has no user message to answer", { retryable: false });
  const sdk = await loadSdk();
  // Someone is waiting for the answer: one retry, then the caller reports the failure.
  sharedClient ??= observed(new sdk.BedrockRuntimeClient({ maxAttempts: 2 }));
  let reason: FinishReason | undefined;
  let usage: { inputTokens: number; outputTokens: number } | undefined;
  try {
    const output = await sharedClient.send(new sdk.ConverseStreamCommand(input), { abortSignal: options.signal });
    for await (const event of output.stream ?? []) {
      if (options.signal?.aborted) break;
      const text = eventText(event);
      if (text) yield { type: "text", text };
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
