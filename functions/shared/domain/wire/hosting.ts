import type { HostingRecord, StoredLlmConfig } from "../hosting.ts";
import { withMaskedKey } from "../secrets.ts";
import type { Wire } from "./schemas.ts";

/** The hosting as callers see it: every field, the chat model's key masked. */
export function hostingToWire(record: HostingRecord): Wire<"Hosting"> {
  return {
    namespaceId: record.namespaceId,
    title: record.title,
    slug: record.slug,
    logo: record.logo,
    ogTitle: record.ogTitle,
    ogDescription: record.ogDescription,
    ogImage: record.ogImage,
    systemPrompt: record.systemPrompt,
    exampleQuestions: record.exampleQuestions,
    exampleSearchQueries: record.exampleSearchQueries,
    welcomeMessage: record.welcomeMessage,
    citationMetadataPath: record.citationMetadataPath,
    searchEnabled: record.searchEnabled,
    rerankConfig: record.rerankConfig,
    llmConfig: withMaskedKey(record.llmConfig as StoredLlmConfig & { apiKey?: string }),
    topK: record.topK,
    protected: record.protected,
    allowedEmails: record.allowedEmails,
    allowedEmailDomains: record.allowedEmailDomains,
    chatMode: record.chatMode ?? "single-shot",
    mcpEnabled: record.mcpEnabled ?? false,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
