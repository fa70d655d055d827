import { LLM_PROVIDERS, type LlmProviderId } from "../domain/catalogs/llm-providers.ts";
import type { ChatModelSettings, LlmProviderModule } from "./registry.ts";
import type { ChatModel } from "./types.ts";

export { ChatError, type ChatDelta, type ChatMessage, type ChatModel } from "./types.ts";

/** The chat model of a configuration; the provider's module is loaded on first use. */
export async function chatModelFor(settings: ChatModelSettings & { provider: LlmProviderId }): Promise<ChatModel> {
  // One template, so the bundler includes every providers/*.ts in the functions that chat, and only there.
  const provider = (await import(`./providers/${LLM_PROVIDERS[settings.provider].module}.ts`)) as LlmProviderModule;
  const { provider: _id, ...rest } = settings;
  return provider.createChatModel(rest);
}
