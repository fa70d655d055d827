import { modelsInRegion, RERANKING_PROVIDERS, type RerankingConfig, type RerankingProviderId, type RerankingProviderRow } from "../domain/catalogs/reranking-providers.ts";
import { RERANKING_MODULES } from "./registry.ts";
import type { Reranker } from "./types.ts";

export { RerankError, type RerankCandidate, type RerankedCandidate, type Reranker } from "./types.ts";

export interface RerankChoice {
  provider: RerankingProviderId;
  model: string;
  apiKey?: string;
}

export interface RerankDeployment {
  /** `DEFAULT_RERANKER`: the provider of namespaces without their own configuration, or NONE. */
  defaultProvider: string;
  region: string;
}

/**
 * Which reranker serves a search: the namespace's own configuration, else the deployment's default
 * (Bedrock when deployed; none on the offline local stack). A requested agentset model name is
 * honoured when that provider has the model (or, on Bedrock, the Cohere family); any other name
 * gets the configured model, so a caller never has to know what a deployment runs. Null when there
 * is no reranker, or Bedrock offers none in this region.
 */
export function chooseReranker(
  configured: RerankingConfig | undefined,
  /** An agentset `rerankModel` name (domain/hosting.ts RERANK_MODELS). */
  requested: string | undefined,
  deployment: RerankDeployment,
): RerankChoice | null {
  const config = configured ?? (deployment.defaultProvider === "BEDROCK" ? { provider: "BEDROCK" as const } : undefined);
  if (!config) return null;
  const offered = modelsInRegion(config.provider, deployment.region);
  const row: RerankingProviderRow = RERANKING_PROVIDERS[config.provider];
  const mapped = requested === undefined ? undefined : row.agentsetModels[requested];
  const model = [mapped, config.model, offered[0]].find((candidate) => candidate !== undefined && offered.includes(candidate));
  if (!model) return null;
  return { provider: config.provider, model, ...(config.apiKey ? { apiKey: config.apiKey } : {}) };
}

/** The reranker of a choice; the provider's module is loaded on first use. */
export async function rerankerFor(choice: RerankChoice, baseUrls: Readonly<Record<string, string>> = {}): Promise<Reranker> {
  const provider = await RERANKING_MODULES[choice.provider]();
  const baseUrl = baseUrls[choice.provider];
  return provider.create({ model: choice.model, ...(choice.apiKey ? { apiKey: choice.apiKey } : {}), ...(baseUrl ? { baseUrl } : {}) });
}
