import * as z from "../platform/zod.ts";
import { defaultModel, EMBEDDING_PROVIDERS, type EmbeddingProvider, modelsOf } from "./embedding-models.ts";
import { maskSecret } from "./secrets.ts";

export const namespaceName = z.string().check(z.trim(), z.minLength(1), z.maxLength(64));
export const namespaceSlug = z
  .string()
  .check(z.regex(/^[a-z0-9-]{1,64}$/, "must be 1 to 64 characters: lowercase letters, digits or hyphens"));

const apiKey = z.string().check(z.trim(), z.minLength(1), z.maxLength(512));

function modelField(provider: EmbeddingProvider) {
  return z._default(z.enum(modelsOf(provider)), defaultModel(provider));
}

export const embeddingConfigInput = z.discriminatedUnion("provider", [
  z.object({ provider: z.literal("LOCAL"), model: modelField("LOCAL") }),
  z.object({ provider: z.literal("BEDROCK"), model: modelField("BEDROCK") }),
  z.object({ provider: z.literal("OPENAI"), model: modelField("OPENAI"), apiKey }),
  z.object({
    provider: z.literal("AZURE_OPENAI"),
    model: modelField("AZURE_OPENAI"),
    apiKey,
    resourceName: z.string().check(z.regex(/^[a-zA-Z0-9-]{2,64}$/, "must be the Azure resource name")),
    deployment: z.string().check(z.trim(), z.minLength(1), z.maxLength(128)),
    apiVersion: z._default(z.string().check(z.trim(), z.minLength(1), z.maxLength(32)), "2024-10-21"),
  }),
  z.object({ provider: z.literal("VOYAGE"), model: modelField("VOYAGE"), apiKey }),
  z.object({ provider: z.literal("GOOGLE"), model: modelField("GOOGLE"), apiKey }),
]);

export type EmbeddingConfig = z.output<typeof embeddingConfigInput>;

/** Only the managed store is accepted on create; the legacy value is returned and served, never set. */
export const VECTOR_STORE_PROVIDERS = ["MANAGED_VECTORSTORE", "MANAGED_VECTORSTORE_OLD"] as const;
export const vectorStoreConfigInput = z.object({
  provider: z.literal("MANAGED_VECTORSTORE", {
    error: "only MANAGED_VECTORSTORE can be chosen when a namespace is created",
  }),
});
export type VectorStoreConfig = { provider: (typeof VECTOR_STORE_PROVIDERS)[number] };

export const createNamespaceBody = z.object({
  name: namespaceName,
  slug: namespaceSlug,
  embeddingConfig: z.optional(embeddingConfigInput),
  vectorStoreConfig: z.optional(vectorStoreConfigInput),
});

export const updateNamespaceBody = z.object({
  name: z.optional(namespaceName),
  slug: z.optional(namespaceSlug),
});

export type NamespaceStatus = "ACTIVE" | "DELETING";

export interface NamespaceRecord {
  id: string;
  name: string;
  slug: string;
  organizationId: string;
  status: NamespaceStatus;
  createdAt: string;
  updatedAt: string;
  embeddingConfig: EmbeddingConfig;
  vectorStoreConfig: VectorStoreConfig;
}

export function defaultEmbeddingConfig(provider: string): EmbeddingConfig {
  const chosen = (EMBEDDING_PROVIDERS as string[]).includes(provider) ? (provider as EmbeddingProvider) : "LOCAL";
  if (chosen !== "LOCAL" && chosen !== "BEDROCK") {
    throw new Error(`DEFAULT_EMBEDDING_PROVIDER must be LOCAL or BEDROCK (providers that need no key), not ${provider}`);
  }
  return { provider: chosen, model: defaultModel(chosen) } as EmbeddingConfig;
}

/** The namespace as callers see it: provider credentials masked, never echoed. */
export function namespaceToWire(record: NamespaceRecord) {
  const embeddingConfig: Record<string, unknown> = { ...record.embeddingConfig };
  if (typeof embeddingConfig.apiKey === "string") embeddingConfig.apiKey = maskSecret(embeddingConfig.apiKey);
  return {
    id: record.id,
    name: record.name,
    slug: record.slug,
    organizationId: record.organizationId,
    createdAt: record.createdAt,
    status: record.status,
    embeddingConfig,
    vectorStoreConfig: record.vectorStoreConfig,
  };
}
