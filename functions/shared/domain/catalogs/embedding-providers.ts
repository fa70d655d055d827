import * as z from "../../platform/zod.ts";

/**
 * The embedding providers, by the id a namespace's `embeddingConfig.provider` names: the models each
 * accepts with their vector dimension (the first is the default), the settings a namespace gives it
 * beyond `model`. The namespace schema's provider union and the dimension lookups derive from this
 * table; the module that embeds is loaded by embedding/registry.ts, whose table the type checker
 * holds to these ids. Adding a provider: one row here, one module under embedding/providers/
 * exporting `create`, one loader in embedding/registry.ts.
 *
 * Pure data: the domain reads it (schemas, dimensions) without loading any provider.
 */
const apiKey = z.string().check(z.trim(), z.minLength(1), z.maxLength(512));


export interface EmbeddingProviderRow {
  readonly label: string;
  readonly models: Readonly<Record<string, number>>;
  readonly settings: Readonly<Record<string, z.ZodMiniType>>;
  /**
   * Third-party Bedrock models are sold through AWS Marketplace: the first call subscribes the
   * account, which needs aws-marketplace permissions scoped to these product ids (the stack grants them).
   */
  readonly marketplaceProductIds?: Readonly<Record<string, string>>;
  /**
   * The weight of semantic similarity in hybrid search when a request sets none (keyword BM25 has
   * the rest): lower for an embedder weak on meaning. Measured by bench/retrieval-quality.ts.
   */
  readonly hybridSemanticWeight?: number;
}

/** The hybrid weight of semantic similarity for a provider that states none. */
export const DEFAULT_HYBRID_SEMANTIC_WEIGHT = 0.5;

export const EMBEDDING_PROVIDERS = {
  LOCAL: {
    label: "local feature hashing (offline)",
    models: { "local-hash-384": 384 },
    settings: {},
    // Hashed words know what BM25 knows and less (no paraphrase): every weight above 0 measured
    // worse than keyword alone (bench/retrieval-quality.ts), so BM25 ranks and similarity only
    // orders its ties and the chunks without a query word.
    hybridSemanticWeight: 0,
  },
  BEDROCK: {
    label: "Amazon Bedrock",
    models: { "amazon.titan-embed-text-v2:0": 1024, "cohere.embed-english-v3": 1024, "cohere.embed-multilingual-v3": 1024 },
    settings: {},
    // From the models' cards in the Bedrock user guide ("Marketplace product ID").
    marketplaceProductIds: {
      "cohere.embed-english-v3": "b7568428-a1ab-46d8-bab3-37def50f6f6a",
      "cohere.embed-multilingual-v3": "38e55671-c3fe-4a44-9783-3584906e7cad",
    },
  },
  OPENAI: {
    label: "OpenAI",
    models: { "text-embedding-3-small": 1536, "text-embedding-3-large": 3072 },
    settings: { apiKey },
  },
  AZURE_OPENAI: {
    label: "Azure OpenAI",
    models: { "text-embedding-3-small": 1536, "text-embedding-3-large": 3072 },
    settings: {
      apiKey,
      resourceName: z.string().check(z.regex(/^[a-zA-Z0-9-]{2,64}$/, "must be the Azure resource name")),
      deployment: z.string().check(z.trim(), z.minLength(1), z.maxLength(128)),
      apiVersion: z._default(z.string().check(z.trim(), z.minLength(1), z.maxLength(32)), "2024-10-21"),
    },
  },
  VOYAGE: {
    label: "Voyage AI",
    models: {
      "voyage-3-large": 1024,
      "voyage-3": 1024,
      "voyage-3-lite": 512,
      "voyage-code-3": 1024,
      "voyage-finance-2": 1024,
      "voyage-law-2": 1024,
    },
    settings: { apiKey },
  },
  GOOGLE: {
    label: "Google AI",
    models: { "text-embedding-004": 768 },
    settings: { apiKey },
  },
} as const satisfies Record<string, EmbeddingProviderRow>;

export type EmbeddingProviderId = keyof typeof EMBEDDING_PROVIDERS;
export const EMBEDDING_PROVIDER_IDS = Object.keys(EMBEDDING_PROVIDERS) as EmbeddingProviderId[];

/** A namespace's embedding configuration for one provider: its id, a model, and the row's settings. */
export type EmbeddingConfigOf<P extends EmbeddingProviderId> = {
  provider: P;
  model: string;
} & { -readonly [K in keyof (typeof EMBEDDING_PROVIDERS)[P]["settings"]]: z.output<(typeof EMBEDDING_PROVIDERS)[P]["settings"][K]> };

export type EmbeddingConfig = { [P in EmbeddingProviderId]: EmbeddingConfigOf<P> }[EmbeddingProviderId];

export function modelsOf(provider: EmbeddingProviderId): [string, ...string[]] {
  return Object.keys(EMBEDDING_PROVIDERS[provider].models) as [string, ...string[]];
}

export function defaultModel(provider: EmbeddingProviderId): string {
  return modelsOf(provider)[0];
}

export function embeddingDimension(provider: EmbeddingProviderId, model: string): number {
  const dimension = (EMBEDDING_PROVIDERS[provider].models as Record<string, number>)[model];
  if (dimension === undefined) throw new Error(`unknown model ${model} for ${provider}`);
  return dimension;
}

/** Every AWS Marketplace product id a deployment's embedders may subscribe to on first use. */
export function marketplaceProductIds(): string[] {
  return Object.values(EMBEDDING_PROVIDERS).flatMap((row: EmbeddingProviderRow) => Object.values(row.marketplaceProductIds ?? {}));
}
