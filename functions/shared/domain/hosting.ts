import * as z from "../platform/zod.ts";
import { LLM_PROVIDER_IDS } from "./catalogs/llm-providers.ts";
import { isLlmConfig, llmConfigInput, type LlmConfig } from "./llm-config.ts";
import { withMaskedKey } from "./secrets.ts";

/** How chat retrieves: one search before the model answers, or the model searching with tools (README "Chat"). */
export const CHAT_MODES = ["single-shot", "agentic"] as const;
export type ChatMode = (typeof CHAT_MODES)[number];

export const RERANK_MODELS = [
  "cohere:rerank-v4.0-pro",
  "cohere:rerank-v4.0-fast",
  "cohere:rerank-v3.5",
  "cohere:rerank-english-v3.0",
  "cohere:rerank-multilingual-v3.0",
  "zeroentropy:zerank-2",
  "zeroentropy:zerank-1",
  "zeroentropy:zerank-1-small",
] as const;

export const LLM_MODELS = [
  "openai:gpt-5.5",
  "openai:gpt-4.1",
  "openai:gpt-5.2",
  "openai:gpt-5.1",
  "openai:gpt-5",
  "openai:gpt-5-mini",
  "openai:gpt-5-nano",
] as const;

export const DEFAULT_RERANK_CONFIG = { model: RERANK_MODELS[0], limit: 15 };
export const DEFAULT_LLM_CONFIG = { model: LLM_MODELS[0] };
export const DEFAULT_HOSTING_TOP_K = 50;

export const hostingSlug = z
  .string()
  .check(z.regex(/^[a-z0-9-]{2,48}$/, "must be 2 to 48 characters: lowercase letters, digits or hyphens"));

/**
 * Every hosting field is bounded so that the largest record still fits one DynamoDB item (400 KB,
 * strings counted in UTF-8, so up to 3 bytes per character); test/unit/hosting-limits.test.ts
 * builds that record and measures it. Lists of addresses dominate: 1,000 e-mails of RFC 5321's
 * 254 characters are 254 KB, so domains, which each stand for many addresses, get 100.
 */
export const HOSTING_LIMITS = {
  title: 128,
  url: 2048,
  ogTitle: 70,
  ogDescription: 200,
  systemPrompt: 20_000,
  exampleCount: 4,
  exampleLength: 300,
  welcomeMessage: 2000,
  citationMetadataPath: 256,
  allowedEmails: 1000,
  /** RFC 5321: a path is at most 256 octets with its angle brackets, a local part at most 64. */
  emailLength: 254,
  emailLocalPartLength: 64,
  allowedEmailDomains: 100,
  /** RFC 1035: a name is at most 253 characters in text form, a label 63. */
  domainLength: 253,
} as const;

/**
 * Hosting text reaches HTML, mail headers and logs: a single-line field holds no control character
 * at all (a title with `\r\nBcc: …` is refused, not stored), a multi-line one only line feeds and tabs.
 */
const SINGLE_LINE = /^[^\p{Cc}\u2028\u2029]*$/u;
const MULTI_LINE = /^(?:[\n\t]|[^\p{Cc}\u2028\u2029])*$/u;
const singleLine = () => z.regex(SINGLE_LINE, "must be one line, without line breaks or control characters");
const multiLine = () => z.regex(MULTI_LINE, "must not contain control characters other than line feeds and tabs");

const httpsUrl = z.string().check(
  z.maxLength(HOSTING_LIMITS.url),
  singleLine(),
  z.refine((value) => {
    try {
      return new URL(value).protocol === "https:";
    } catch {
      return false;
    }
  }, "must be an https URL"),
);

const shortList = z
  .array(z.string().check(z.trim(), z.minLength(1), z.maxLength(HOSTING_LIMITS.exampleLength), singleLine()))
  .check(z.maxLength(HOSTING_LIMITS.exampleCount));

const allowedEmail = z.pipe(
  z.string().check(z.trim(), z.toLowerCase(), z.maxLength(HOSTING_LIMITS.emailLength)),
  z.email().check(
    z.refine(
      (value) => value.lastIndexOf("@") <= HOSTING_LIMITS.emailLocalPartLength,
      `the part before @ must be at most ${HOSTING_LIMITS.emailLocalPartLength} characters`,
    ),
  ),
);

// Normalised first, then checked: the published contract then describes what callers may send
// (any case, surrounding spaces), not the normalised form.
const allowedEmailDomain = z.pipe(
  z.string().check(z.trim(), z.toLowerCase(), z.maxLength(HOSTING_LIMITS.domainLength)),
  z.string().check(z.regex(/^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "must be a domain name")),
);

export const updateHostingBody = z.object({
  title: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(HOSTING_LIMITS.title), singleLine())),
  slug: z.optional(hostingSlug),
  logo: z.optional(z.nullable(httpsUrl)),
  ogImage: z.optional(z.nullable(httpsUrl)),
  ogTitle: z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(HOSTING_LIMITS.ogTitle), singleLine()))),
  ogDescription: z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(HOSTING_LIMITS.ogDescription), singleLine()))),
  protected: z.optional(z.boolean()),
  allowedEmails: z.optional(z.array(allowedEmail).check(z.maxLength(HOSTING_LIMITS.allowedEmails))),
  allowedEmailDomains: z.optional(z.array(allowedEmailDomain).check(z.maxLength(HOSTING_LIMITS.allowedEmailDomains))),
  systemPrompt: z.optional(z.nullable(z.string().check(z.maxLength(HOSTING_LIMITS.systemPrompt), multiLine()))),
  exampleQuestions: z.optional(shortList),
  exampleSearchQueries: z.optional(shortList),
  welcomeMessage: z.optional(z.string().check(z.maxLength(HOSTING_LIMITS.welcomeMessage), multiLine())),
  citationMetadataPath: z.optional(z.string().check(z.maxLength(HOSTING_LIMITS.citationMetadataPath), singleLine())),
  searchEnabled: z.optional(z.boolean()),
  rerankModel: z.optional(z.enum(RERANK_MODELS)),
  rerankLimit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(100))),
  llmModel: z.optional(z.enum(LLM_MODELS)),
  /** The chat model of the page (domain/llm-config.ts); null returns it to the deployment's default. */
  llmConfig: z.optional(z.nullable(llmConfigInput)),
  topK: z.optional(z.number().check(z.int(), z.gte(1), z.lte(100))),
  /** How the chat tab (and chat requests that do not say) retrieve: one search, or the model searching with tools. */
  chatMode: z.optional(z.enum(CHAT_MODES)),
  /** Serve the page's search to agents at `/hosted/{slug}/mcp` (README "MCP server"). */
  mcpEnabled: z.optional(z.boolean()),
});

export type HostingPatch = z.output<typeof updateHostingBody>;

export interface HostingRecord {
  namespaceId: string;
  /** Always set (the namespace's name at first; an update may change it, never clear it). */
  title: string;
  slug: string;
  logo: string | null;
  ogTitle: string | null;
  ogDescription: string | null;
  ogImage: string | null;
  systemPrompt: string | null;
  exampleQuestions: string[];
  exampleSearchQueries: string[];
  welcomeMessage: string | null;
  citationMetadataPath: string | null;
  searchEnabled: boolean;
  rerankConfig: { model: string; limit: number };
  /** An agentset model name alone (served by the deployment's default model), or a provider configuration. */
  llmConfig: StoredLlmConfig;
  topK: number;
  protected: boolean;
  allowedEmails: string[];
  allowedEmailDomains: string[];
  /** Absent on hostings written before chat could be agentic: single-shot. */
  chatMode?: ChatMode;
  /** Absent on hostings written before pages served MCP: off. */
  mcpEnabled?: boolean;
  createdAt: string;
  updatedAt: string;
}

export type StoredLlmConfig = { model: string } | LlmConfig;

/**
 * A hosting as stored, checked on every read (see domain/records.ts). Its text was bounded and
 * checked when written, so only types are checked here. `llmConfig` was a model name alone before
 * pages could name a provider; `chatMode` and `mcpEnabled` are absent on hostings written before
 * them (see the record's type).
 */
const text = z.string();
const textOrNull = z.nullable(text);
const texts = z.array(text);

export const hostingRecordSchema = z.looseObject({
  namespaceId: text,
  slug: text,
  title: text, logo: textOrNull, ogTitle: textOrNull, ogDescription: textOrNull, ogImage: textOrNull,
  systemPrompt: textOrNull, welcomeMessage: textOrNull, citationMetadataPath: textOrNull,
  exampleQuestions: texts, exampleSearchQueries: texts, allowedEmails: texts, allowedEmailDomains: texts,
  searchEnabled: z.boolean(), protected: z.boolean(), topK: z.number(),
  rerankConfig: z.object({ model: text, limit: z.number() }),
  llmConfig: z.looseObject({ provider: z.optional(z.enum(LLM_PROVIDER_IDS)), model: z.optional(text) }) as z.ZodMiniType<StoredLlmConfig>,
  chatMode: z.optional(z.enum(CHAT_MODES)),
  mcpEnabled: z.optional(z.boolean()),
  createdAt: text,
  updatedAt: text,
}) satisfies z.ZodMiniType<HostingRecord>;

export function newHosting(namespace: { id: string; name: string; slug: string }, slugSuffix: string, now: string): HostingRecord {
  return {
    namespaceId: namespace.id,
    title: namespace.name,
    slug: `${namespace.slug.slice(0, 37)}-${slugSuffix}`,
    logo: null,
    ogTitle: null,
    ogDescription: null,
    ogImage: null,
    systemPrompt: null,
    exampleQuestions: [],
    exampleSearchQueries: [],
    welcomeMessage: null,
    citationMetadataPath: null,
    searchEnabled: true,
    rerankConfig: DEFAULT_RERANK_CONFIG,
    llmConfig: DEFAULT_LLM_CONFIG,
    topK: DEFAULT_HOSTING_TOP_K,
    protected: true,
    allowedEmails: [],
    allowedEmailDomains: [],
    chatMode: "single-shot",
    mcpEnabled: false,
    createdAt: now,
    updatedAt: now,
  };
}

/** Applies a validated patch. An empty string prompt means "use the platform default", stored as null. */
export function applyHostingPatch(current: HostingRecord, patch: HostingPatch, now: string): HostingRecord {
  const { rerankModel, rerankLimit, llmModel, llmConfig, systemPrompt, ...plain } = patch;
  const next: HostingRecord = { ...current };
  for (const [key, value] of Object.entries(plain)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  }
  if (systemPrompt !== undefined) next.systemPrompt = systemPrompt === "" ? null : systemPrompt;
  if (rerankModel !== undefined || rerankLimit !== undefined) {
    next.rerankConfig = { model: rerankModel ?? current.rerankConfig.model, limit: rerankLimit ?? current.rerankConfig.limit };
  }
  if (llmConfig !== undefined) next.llmConfig = llmConfig ?? DEFAULT_LLM_CONFIG;
  if (llmModel !== undefined) next.llmConfig = withAgentsetModel(next.llmConfig, llmModel);
  next.updatedAt = now;
  return next;
}

/**
 * An agentset `llmModel` (`openai:gpt-5-mini`) names the model of an OpenAI-compatible endpoint
 * the page already uses; otherwise it is kept as a name only, and the deployment's default answers
 * (this deployment hosts no OpenAI models of its own). README "Chat".
 */
function withAgentsetModel(current: StoredLlmConfig, llmModel: string): StoredLlmConfig {
  if ("provider" in current && current.provider === "OPENAI_COMPATIBLE") return { ...current, model: llmModel.replace(/^openai:/, "") };
  return { model: llmModel };
}

/** The hosting's own chat model, when its llmConfig names a provider (an agentset model name alone means the default). */
export function hostingChatModel(hosting: Pick<HostingRecord, "llmConfig">): LlmConfig | undefined {
  return isLlmConfig(hosting.llmConfig) ? hosting.llmConfig : undefined;
}

