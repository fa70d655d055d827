import * as z from "../../platform/zod.ts";

/**
 * The language-model providers, by the id an `llmConfig.provider` names: the settings each takes
 * beyond `model`. Adding a provider: one row here, one module under llm/providers/ exporting
 * `create`, one loader in llm/registry.ts.
 *
 * Pure data: the hosting and chat schemas read it without loading any provider.
 */

export interface LlmProviderRow {
  readonly label: string;
  /** The row's fields besides `provider`, as the request schema checks them. */
  readonly settings: Readonly<Record<string, z.ZodMiniType>>;
}

/** Model names, URLs and keys reach response headers and logs: one line, no control characters. */
const oneLine = () => z.regex(/^[^\p{Cc}\u2028\u2029]*$/u, "must be one line, without line breaks or control characters");

const modelId = z.string().check(z.trim(), z.minLength(1), z.maxLength(256), oneLine());

const baseUrl = z.string().check(
  z.trim(),
  z.maxLength(2048),
  // The URL parser drops tabs and line breaks silently; the stored value must not hold them either.
  oneLine(),
  z.refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "https:" || url.protocol === "http:") && url.username === "" && url.password === "" && url.search === "" && url.hash === "";
    } catch {
      return false;
    }
  }, "must be an http(s) URL without credentials, query or fragment, such as https://api.openai.com/v1"),
);

export const LLM_PROVIDERS = {
  BEDROCK: {
    label: "Amazon Bedrock",
    // Any model or inference profile id the account may use; absent, the deployment's default.
    settings: { model: z.optional(modelId) },
  },
  OPENAI_COMPATIBLE: {
    label: "OpenAI-compatible endpoint",
    settings: { baseUrl, model: modelId, apiKey: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(512), oneLine())) },
  },
} as const satisfies Record<string, LlmProviderRow>;

export type LlmProviderId = keyof typeof LLM_PROVIDERS;
export const LLM_PROVIDER_IDS = Object.keys(LLM_PROVIDERS) as LlmProviderId[];

export type LlmConfig = { provider: "BEDROCK"; model?: string } | { provider: "OPENAI_COMPATIBLE"; baseUrl: string; model: string; apiKey?: string };

/**
 * Bedrock's default chat model by the deployment's region: Amazon Nova Lite through the
 * cross-Region inference profile of the region's geography (a first-party model: no Marketplace
 * subscription, no use-case form). A region outside these has no default; a namespace then names
 * a model or another provider.
 */
const NOVA_LITE_PROFILES: Readonly<Record<string, readonly string[]>> = {
  "us.amazon.nova-lite-v1:0": ["us-east-1", "us-east-2", "us-west-2"],
  "eu.amazon.nova-lite-v1:0": ["eu-central-1", "eu-west-1", "eu-west-3", "eu-north-1"],
  "apac.amazon.nova-lite-v1:0": ["ap-northeast-1", "ap-northeast-2", "ap-south-1", "ap-southeast-1", "ap-southeast-2"],
};

export function defaultBedrockChatModel(region: string): string | undefined {
  return Object.entries(NOVA_LITE_PROFILES).find(([, regions]) => regions.includes(region))?.[0];
}

/**
 * The Bedrock chat models a deployment accepts by default besides its own default model
 * (`-c chatModels=` replaces them): Amazon's first-party Nova models, which need no Marketplace
 * subscription and cost least per token. Each entry also admits its cross-Region inference
 * profiles (`us.`, `eu.`, `apac.`, … prefixes), which run the same model.
 */
export const DEFAULT_CHAT_MODELS: readonly string[] = ["amazon.nova-micro-v1:0", "amazon.nova-lite-v1:0", "amazon.nova-pro-v1:0"];

const GEOGRAPHY_PREFIX = /^(?:us|eu|apac|us-gov|jp|au|ca|global)\./;

/** The model behind an id: a foundation-model or inference-profile ARN's last part, without a geography prefix. */
function baseModel(model: string): string {
  const fromArn = /^arn:[^:]+:bedrock:[^:]*:[^:]*:(?:foundation-model|inference-profile)\/(.+)$/.exec(model)?.[1] ?? model;
  return fromArn.replace(GEOGRAPHY_PREFIX, "");
}

/** Whether a Bedrock model id (or inference profile, or their ARN) names a model on the allow-list. */
export function isAllowedChatModel(model: string, allowed: readonly string[]): boolean {
  const wanted = baseModel(model);
  return allowed.some((entry) => entry === model || baseModel(entry) === wanted);
}

/** The allow-list a deployment runs with: the models given (or the default set) and its own default model. */
export function chatModelAllowList(given: readonly string[] | null, defaultModel: string | null | undefined): string[] {
  return [...new Set([...(given ?? DEFAULT_CHAT_MODELS), ...(defaultModel ? [defaultModel] : [])])];
}
