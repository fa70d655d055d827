import type { LlmProviderId } from "../domain/catalogs/llm-providers.ts";
import type { ChatModel } from "./types.ts";

/**
 * The port side of the LLM catalog (domain/catalogs/llm-providers.ts): the module of each provider,
 * imported on first use. Every module a port loads exports `create`; the table is typed by the
 * catalog's ids, so a catalog row without its module does not type-check.
 */
export interface ChatModelSettings {
  model: string;
  /** OPENAI_COMPATIBLE: the endpoint's base URL, the part before `/chat/completions`. */
  baseUrl?: string;
  apiKey?: string;
}

export interface LlmProviderModule {
  create(settings: ChatModelSettings): ChatModel;
}

// Typed rather than inferred from the imports: the modules import types back from here.
export const LLM_MODULES: Readonly<Record<LlmProviderId, () => Promise<LlmProviderModule>>> = {
  BEDROCK: () => import("./providers/bedrock.ts"),
  OPENAI_COMPATIBLE: () => import("./providers/openai-compatible.ts"),
};
