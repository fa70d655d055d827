import type { ChatModel } from "./types.ts";

/** The port side of the LLM catalog (domain/catalogs/llm-providers.ts): what a provider module exports. */
export interface ChatModelSettings {
  model: string;
  /** OPENAI_COMPATIBLE: the endpoint's base URL, the part before `/chat/completions`. */
  baseUrl?: string;
  apiKey?: string;
}

export interface LlmProviderModule {
  createChatModel(settings: ChatModelSettings): ChatModel;
}
