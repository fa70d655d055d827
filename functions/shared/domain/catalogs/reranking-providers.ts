import * as z from "../../platform/zod.ts";

/**
 * The reranking providers, by the id a namespace's `rerankingConfig.provider` names: the models each
 * offers (the first is its default), the settings a namespace gives it beyond `model`, which of the
 * agentset `rerankModel` names it serves and with which model. Adding a provider: one row here, one
 * module under reranking/providers/ exporting `create`, one loader in reranking/registry.ts.
 *
 * Pure data: the namespace schema reads it without loading any provider.
 */
const apiKey = z.string().check(z.trim(), z.minLength(1), z.maxLength(512));


export interface RerankingProviderRow {
  readonly label: string;
  readonly models: readonly [string, ...string[]];
  readonly settings: Readonly<Record<string, z.ZodMiniType>>;
  /** The agentset names this provider answers, mapped onto its own models; other names get the namespace's model. */
  readonly agentsetModels: Readonly<Record<string, string>>;
  /** Bedrock: the regions that offer each model. Absent: every model everywhere. */
  readonly regions?: Readonly<Record<string, readonly string[]>>;
  /** Bedrock: AWS Marketplace products of third-party models, which subscribe the account on first use. */
  readonly marketplaceProductIds?: Readonly<Record<string, string>>;
}

const COHERE_MODELS = ["rerank-v4.0-pro", "rerank-v4.0-fast", "rerank-v3.5", "rerank-english-v3.0", "rerank-multilingual-v3.0"] as const;
const ZEROENTROPY_MODELS = ["zerank-2", "zerank-1", "zerank-1-small"] as const;

export const RERANKING_PROVIDERS = {
  BEDROCK: {
    label: "Amazon Bedrock Rerank",
    models: ["amazon.rerank-v1:0", "cohere.rerank-v3-5:0"],
    settings: {},
    // Bedrock offers one Cohere reranker: every Cohere name asks for Cohere's model family.
    agentsetModels: Object.fromEntries(COHERE_MODELS.map((model) => [`cohere:${model}`, "cohere.rerank-v3-5:0"])),
    // "Supported Regions and models for reranking" in the Bedrock user guide; Amazon Rerank 1.0 is
    // not offered in us-east-1, where Cohere Rerank 3.5 is the only reranker.
    regions: {
      "amazon.rerank-v1:0": ["ap-northeast-1", "ca-central-1", "eu-central-1", "us-west-2"],
      "cohere.rerank-v3-5:0": ["ap-northeast-1", "ca-central-1", "eu-central-1", "us-east-1", "us-west-2"],
    },
    // From the model card of Cohere Rerank 3.5 in the Bedrock user guide ("Marketplace product ID").
    marketplaceProductIds: { "cohere.rerank-v3-5:0": "prod-2o5bej62oxkbi" },
  },
  COHERE: {
    label: "Cohere",
    models: COHERE_MODELS,
    settings: { apiKey },
    agentsetModels: Object.fromEntries(COHERE_MODELS.map((model) => [`cohere:${model}`, model])),
  },
  VOYAGE: {
    label: "Voyage AI",
    models: ["rerank-2.5", "rerank-2.5-lite", "rerank-2", "rerank-2-lite"],
    settings: { apiKey },
    agentsetModels: {},
  },
  ZEROENTROPY: {
    label: "ZeroEntropy",
    models: ZEROENTROPY_MODELS,
    settings: { apiKey },
    agentsetModels: Object.fromEntries(ZEROENTROPY_MODELS.map((model) => [`zeroentropy:${model}`, model])),
  },
} as const satisfies Record<string, RerankingProviderRow>;

export type RerankingProviderId = keyof typeof RERANKING_PROVIDERS;
export const RERANKING_PROVIDER_IDS = Object.keys(RERANKING_PROVIDERS) as RerankingProviderId[];

/** A namespace's reranking configuration: a provider, optionally a model, and the row's settings. */
export type RerankingConfig = { provider: RerankingProviderId; model?: string; apiKey?: string };

/** The models of a provider that this region offers, default first. */
export function modelsInRegion(provider: RerankingProviderId, region: string): string[] {
  const row: RerankingProviderRow = RERANKING_PROVIDERS[provider];
  return row.models.filter((model) => !row.regions || (row.regions[model] ?? []).includes(region));
}

/** Every AWS Marketplace product id a deployment's rerankers may subscribe to on first use. */
export function rerankMarketplaceProductIds(): string[] {
  return Object.values(RERANKING_PROVIDERS).flatMap((row: RerankingProviderRow) => Object.values(row.marketplaceProductIds ?? {}));
}

/** The Bedrock foundation models a deployment may rerank with. */
export const BEDROCK_RERANK_MODELS: readonly string[] = RERANKING_PROVIDERS.BEDROCK.models;
