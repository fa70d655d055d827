/**
 * The language-model port used by the chat API: a model that streams its answer to a conversation.
 * One module per provider under llm/ exports `createChatModel`; llm/registry.ts names them.
 */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export type ChatDelta =
  | { type: "text"; text: string }
  | { type: "finish"; reason: "stop" | "length" | "content-filter" | "error" | "other"; usage?: { inputTokens: number; outputTokens: number } };

export interface ChatOptions {
  maxOutputTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export interface ChatModel {
  readonly model: string;
  /** The answer as it is produced; ends with exactly one `finish`. */
  stream(messages: ChatMessage[], options?: ChatOptions): AsyncIterable<ChatDelta>;
}
