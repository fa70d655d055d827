import * as z from "../platform/zod.ts";
import {
  defaultModel,
  EMBEDDING_PROVIDER_IDS,
  EMBEDDING_PROVIDERS,
  type EmbeddingConfig,
  type EmbeddingProviderId,
  modelsOf,
} from "./catalogs/embedding-providers.ts";
import { withMaskedKey } from "./secrets.ts";
import { modelsInRegion, RERANKING_PROVIDER_IDS, RERANKING_PROVIDERS, type RerankingConfig } from "./catalogs/reranking-providers.ts";
import { config } from "../platform/env.ts";

export const namespaceName = z.string().check(z.trim(), z.minLength(1), z.maxLength(64));
export const NAMESPACE_SLUG_PATTERN = /^[a-z0-9-]{1,64}$/;

export const namespaceSlug = z
  .string()
  .check(z.regex(NAMESPACE_SLUG_PATTERN, "must be 1 to 64 characters: lowercase letters, digits or hyphens"));

function modelField(provider: EmbeddingProviderId) {
  return z._default(z.enum(modelsOf(provider)), defaultModel(provider));
}

/** One object schema per row of the embedding registry, told apart by `provider`. */
const providerSchemas = EMBEDDING_PROVIDER_IDS.map((provider) =>
  z.object({ provider: z.literal(provider), model: modelField(provider), ...EMBEDDING_PROVIDERS[provider].settings }),
) as unknown as [z.ZodMiniObject, ...z.ZodMiniObject[]];

export const embeddingConfigInput = z.discriminatedUnion("provider", providerSchemas) as unknown as z.ZodMiniType<EmbeddingConfig, unknown>;

export type { EmbeddingConfig, RerankingConfig };

/**
 * The namespace's own reranker, one object schema per row of the reranking registry. Without one,
 * searches use the deployment's default (Bedrock Rerank when deployed). A Bedrock model must be
 * offered in the deployment's region, so a namespace cannot choose a reranker that would only fail.
 */
const rerankingProviderSchemas = RERANKING_PROVIDER_IDS.map((provider) =>
  z.object({ provider: z.literal(provider), model: z.optional(z.enum(RERANKING_PROVIDERS[provider].models)), ...RERANKING_PROVIDERS[provider].settings }),
) as unknown as [z.ZodMiniObject, ...z.ZodMiniObject[]];

export const rerankingConfigInput = (z.discriminatedUnion("provider", rerankingProviderSchemas) as unknown as z.ZodMiniType<RerankingConfig, unknown>).check(
  z.superRefine((value, context) => {
    if (value.model === undefined) return;
    const region = config.awsRegion();
    const offered = modelsInRegion(value.provider, region);
    if (!offered.includes(value.model)) {
      context.addIssue({ code: "custom", path: ["model"], message: `${value.model} is not offered in ${region}; choose ${offered.join(" or ") || "another provider"}` });
    }
  }),
);

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
  rerankingConfig: z.optional(rerankingConfigInput),
});

export const updateNamespaceBody = z.object({
  name: z.optional(namespaceName),
  slug: z.optional(namespaceSlug),
  /** Replaces the namespace's reranker; null returns it to the deployment's default. */
  rerankingConfig: z.optional(z.nullable(rerankingConfigInput)),
});

export const NAMESPACE_STATUSES = ["ACTIVE", "DELETING"] as const;
export type NamespaceStatus = (typeof NAMESPACE_STATUSES)[number];

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
  rerankingConfig?: RerankingConfig;
}

/**
 * A namespace as stored, checked on every read (see domain/records.ts). Its provider configurations
 * were validated in full when written (a key's length, a model offered in the region); on read only
 * their provider and model are checked (and the rest typed as what was validated), so a change of
 * region or of a provider's settings leaves the namespaces written before it readable. Every namespace ever written has these fields but the
 * reranker, which only some have.
 */
export const namespaceRecordSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  organizationId: z.string(),
  status: z.enum(NAMESPACE_STATUSES),
  createdAt: z.string(),
  updatedAt: z.string(),
  embeddingConfig: z.looseObject({ provider: z.enum(EMBEDDING_PROVIDER_IDS), model: z.string() }) as z.ZodMiniType<EmbeddingConfig>,
  vectorStoreConfig: z.object({ provider: z.enum(VECTOR_STORE_PROVIDERS) }),
  rerankingConfig: z.optional(z.looseObject({ provider: z.enum(RERANKING_PROVIDER_IDS), model: z.optional(z.string()) }) as z.ZodMiniType<RerankingConfig>),
}) satisfies z.ZodMiniType<NamespaceRecord>;

export function defaultEmbeddingConfig(provider: string): EmbeddingConfig {
  const chosen = (EMBEDDING_PROVIDER_IDS as string[]).includes(provider) ? (provider as EmbeddingProviderId) : "LOCAL";
  if (chosen !== "LOCAL" && chosen !== "BEDROCK") {
    throw new Error(`DEFAULT_EMBEDDING_PROVIDER must be LOCAL or BEDROCK (providers that need no key), not ${provider}`);
  }
  return { provider: chosen, model: defaultModel(chosen) } as EmbeddingConfig;
}

