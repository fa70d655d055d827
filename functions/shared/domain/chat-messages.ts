/**
 * A conversation as the chat prompt builds it and every language model reads it: the vocabulary
 * shared by domain/chat.ts and the llm/ port (which re-exports it from llm/types.ts).
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

/** Why a model stopped answering: the llm/ port reports it, and the chat answer carries it on the wire. */
export const FINISH_REASONS = ["stop", "length", "content-filter", "tool-calls", "error", "other"] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];
