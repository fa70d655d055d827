import type { LlmProviderId } from "../domain/catalogs/llm-providers.ts";
import { LLM_MODULES, type ChatModelSettings } from "./registry.ts";
import type { ChatModel } from "./types.ts";

export { ChatError, type ChatDelta, type ChatMessage, type ChatModel } from "./types.ts";

/** The chat model of a configuration; the provider's module is loaded on first use. */
export async function chatModelFor(settings: ChatModelSettings & { provider: LlmProviderId }): Promise<ChatModel> {
  const provider = await LLM_MODULES[settings.provider]();
  const { provider: _id, ...rest } = settings;
  return provider.create(rest);
}
