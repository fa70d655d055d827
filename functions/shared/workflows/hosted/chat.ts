import type { ChatMessage } from "../../llm/types.ts";
import { type StartedAnswer, startAnswer, toolRoundsOf } from "../chat.ts";
import { hostingChatModel } from "../../domain/hosting.ts";
import type { PublishedPage } from "./page.ts";
import { pageRetrieval } from "./search.ts";

/** The chat tab: retrieval as the search tab does it (untenanted records only), answered with the page's prompt and model. */
export function answerVisitor(page: PublishedPage, conversation: ChatMessage[]): Promise<StartedAnswer> {
  const { hosting, namespace } = page;
  const model = hostingChatModel(hosting);
  const toolRounds = toolRoundsOf(hosting);
  return startAnswer(namespace, null, {
    conversation,
    retrieval: pageRetrieval(hosting, ""),
    systemPrompt: hosting.systemPrompt,
    ...(model ? { llmConfig: model } : {}),
    citationMetadataPath: hosting.citationMetadataPath,
    ...(toolRounds !== undefined ? { toolRounds } : {}),
  });
}
