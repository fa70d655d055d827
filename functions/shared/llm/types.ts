/**
 * The language-model port used by chat: a model that streams its answer to a conversation.
 * One module per provider under llm/providers/ exports `create`; llm/registry.ts loads them.
 */
import type { FinishReason, ChatMessage, ToolCall } from "../domain/chat-messages.ts";

export type { FinishReason, ChatMessage, ToolCall };

/** A tool the model may call: its name, what it does and a JSON Schema (an object) of its input. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * A tool call from the pieces a provider streams: its input's JSON text, empty meaning no input. Text
 * that is not JSON is passed on as it is, for the tool to refuse, not dropped.
 */
export function toolCallOf(id: string, name: string, inputText: string): ToolCall {
  let input: unknown = inputText;
  try {
    input = inputText.trim() === "" ? {} : JSON.parse(inputText);
  } catch {
    // Kept as text.
  }
  return { id, name, input };
}


export type ChatDelta =
  | { type: "text"; text: string }
  /** A whole tool call, once its input has arrived; the answer then finishes with `tool-calls`. */
  | { type: "tool-call"; call: ToolCall }
  | { type: "finish"; reason: FinishReason; usage?: { inputTokens: number; outputTokens: number } };

export interface ChatOptions {
  maxOutputTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** How a retry waits out its delay (a timer by default; tests pass their own to see the delay asked for). */
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Tools the model may call; with `toolChoice: "none"` it is told to answer instead (the tools only describe earlier calls). */
  tools?: ToolSpec[];
  toolChoice?: "auto" | "none";
}

export interface ChatModel {
  readonly model: string;
  /**
   * The answer as it is produced; ends with exactly one `finish`. A failure before the first text
   * throws a ChatError (the caller can still answer with an error status); a failure after it also
   * throws, and the caller ends the stream it has started with an error part.
   */
  stream(messages: ChatMessage[], options?: ChatOptions): AsyncIterable<ChatDelta>;
}

/**
 * A provider failure whose message is safe to show the namespace owner (no key in it).
 * `unreachable`: no model answered at the configured address at all (connection refused, no such
 * host), which the owner fixes in llmConfig; unlike a busy model, waiting does not help.
 */
export class ChatError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly options: { status?: number; retryable?: boolean; unreachable?: boolean } = {},
  ) {
    super(message);
    this.name = "ChatError";
  }
}
