import { chooseChatModel, isLlmConfig, type LlmConfig } from "../domain/llm-config.ts";
import type { HostingRecord } from "../domain/hosting.ts";
import type { ChatMessage } from "../llm/types.ts";
import { config } from "../platform/env.ts";
import { type StartedAnswer, startAnswer } from "./chat.ts";
import type { PublishedPage } from "./hosted.ts";
import { pageRetrieval } from "./hosted-search.ts";

/** The page's own model, when its llmConfig names a provider (an agentset model name alone means the default). */
function pageModel(hosting: HostingRecord): LlmConfig | undefined {
  return isLlmConfig(hosting.llmConfig) ? hosting.llmConfig : undefined;
}

/** Whether the chat tab can answer: the page's model, or the deployment's default. */
export function pageCanChat(hosting: HostingRecord): boolean {
  return chooseChatModel(pageModel(hosting), { defaultLlm: config.defaultLlm(), region: config.awsRegion(), defaultChatModel: config.defaultChatModel() }) !== null;
}

/** The chat tab: retrieval as the search tab does it (untenanted records only), answered with the page's prompt and model. */
export function answerVisitor(page: PublishedPage, conversation: ChatMessage[]): Promise<StartedAnswer> {
  const { hosting, namespace } = page;
  const model = pageModel(hosting);
  return startAnswer(namespace, null, {
    conversation,
    retrieval: pageRetrieval(hosting, ""),
    systemPrompt: hosting.systemPrompt,
    ...(model ? { llmConfig: model } : {}),
    citationMetadataPath: hosting.citationMetadataPath,
  });
}
