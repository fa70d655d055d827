import type { ChatModel } from "./types.ts";

/**
 * The language-model providers, by id, with their models and the module that talks to each, loaded
 * on first use. Adding a provider is one module under llm/ exporting `createChatModel`, and one row.
 */
export interface ChatModelSettings {
  model: string;
  apiKey?: string;
  baseUrl?: string;
  region?: string;
}

export interface LlmProvider {
  readonly label: string;
  readonly models: readonly string[];
  readonly load: () => Promise<{ createChatModel(settings: ChatModelSettings): ChatModel }>;
}

export const LLM_PROVIDERS = {} as const satisfies Record<string, LlmProvider>;

export type LlmProviderId = keyof typeof LLM_PROVIDERS;
