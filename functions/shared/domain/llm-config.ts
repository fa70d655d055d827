import * as z from "../platform/zod.ts";
import { config } from "../platform/env.ts";
import { chatModelAllowList, defaultBedrockChatModel, isAllowedChatModel, LLM_PROVIDER_IDS, LLM_PROVIDERS, type LlmConfig, type LlmProviderId } from "./catalogs/llm-providers.ts";
import { unprocessable } from "./errors.ts";

export type { LlmConfig };

/**
 * An `llmConfig`: one object schema per row of the LLM registry, told apart by `provider`.
 * `{provider: "BEDROCK", model?}` (IAM, no key) or `{provider: "OPENAI_COMPATIBLE", baseUrl, model,
 * apiKey?}` (OpenAI itself, or any server speaking its chat completions protocol).
 */
const llmProviderSchemas = LLM_PROVIDER_IDS.map((provider) => z.object({ provider: z.literal(provider), ...LLM_PROVIDERS[provider].settings })) as unknown as [
  z.ZodMiniObject,
  ...z.ZodMiniObject[],
];

export const llmConfigInput = z.discriminatedUnion("provider", llmProviderSchemas) as unknown as z.ZodMiniType<LlmConfig, unknown>;

/** Whether a stored hosting `llmConfig` names a provider (ours) rather than only an agentset model name. */
export function isLlmConfig(value: { model?: string; provider?: unknown }): value is LlmConfig {
  return typeof value.provider === "string" && (LLM_PROVIDER_IDS as string[]).includes(value.provider);
}

export interface ChatModelChoice {
  provider: LlmProviderId;
  model: string;
  baseUrl?: string;
  apiKey?: string;
}

/**
 * Which model answers: the configuration given (the request's, else the hosting's), else the
 * deployment's default (Bedrock when deployed, with the deployer's model or the region's default;
 * none on the offline local stack). Null when nothing can answer.
 */
export function chooseChatModel(configured: LlmConfig | undefined, deployment: { defaultLlm: string; region: string; defaultChatModel?: string }): ChatModelChoice | null {
  const config: LlmConfig | undefined = configured ?? (deployment.defaultLlm === "BEDROCK" ? { provider: "BEDROCK" } : undefined);
  if (!config) return null;
  if (config.provider === "OPENAI_COMPATIBLE") return { ...config };
  const model = config.model ?? deployment.defaultChatModel ?? defaultBedrockChatModel(deployment.region);
  return model ? { provider: "BEDROCK", model } : null;
}

/** The model that answers here: chooseChatModel with this deployment's default (DEFAULT_LLM, DEFAULT_CHAT_MODEL, its region). */
export function chatModelHere(configured: LlmConfig | undefined): ChatModelChoice | null {
  return chooseChatModel(configured, { defaultLlm: config.defaultLlm(), region: config.awsRegion(), defaultChatModel: config.defaultChatModel() });
}

/**
 * Refuses a Bedrock model the deployment does not allow (`-c chatModels=`), so no organization can
 * run up the account's bill on a model the deployer did not choose: 422 naming the model. Models of
 * an OpenAI-compatible endpoint are the caller's own account and bill; leaving the model out means
 * the deployment's default, always allowed.
 */
export function assertChatModelAllowed(configured: LlmConfig | undefined, field = "llmConfig"): void {
  if (configured?.provider !== "BEDROCK" || configured.model === undefined) return;
  const allowed = chatModelAllowList(config.chatModels(), config.defaultChatModel());
  if (!isAllowedChatModel(configured.model, allowed)) {
    throw unprocessable(`${field}.model: the Bedrock model ${configured.model} is not allowed on this deployment; use one of ${allowed.join(", ")}, or leave the model out for the deployment's default.`);
  }
}
