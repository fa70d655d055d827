/**
 * The language-model port used by chat: a model that streams its answer to a conversation.
 * One module per provider under llm/providers/ exports `createChatModel`; llm/registry.ts names them.
 */
export type ChatMessage =
  | {
      role: "system" | "user" | "assistant";
      content: string;
      /** On an assistant turn of an agentic answer: the tools it called (its `content` may then be empty). */
      toolCalls?: ToolCall[];
    }
  /** What a tool answered to the call `toolCallId` of the assistant turn before. */
  | { role: "tool"; toolCallId: string; content: string };

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** A tool the model may call: its name, what it does and a JSON Schema (an object) of its input. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export const FINISH_REASONS = ["stop", "length", "content-filter", "tool-calls", "error", "other"] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

export type ChatDelta =
  | { type: "text"; text: string }
  /** A whole tool call, once its input has arrived; the answer then finishes with `tool-calls`. */
  | { type: "tool-call"; call: ToolCall }
  | { type: "finish"; reason: FinishReason; usage?: { inputTokens: number; outputTokens: number } };

export interface ChatOptions {
  maxOutputTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
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
